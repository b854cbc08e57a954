import { PassThrough } from 'node:stream';
import type { Reply } from '../core/http/route-spec.js';

/** A comment line this often keeps proxies and load balancers (60 s idle timeouts) from closing a quiet stream. */
export const KEEP_ALIVE_MS = 15_000;
/** A stream ends after this long; the browser's EventSource reconnects by itself (a bounded hold on each connection). */
export const STREAM_LIFETIME_MS = 10 * 60_000;

type Send = (event: string, data: unknown) => void;

/**
 * A server-sent events reply (text/event-stream) fed by `follow`, which sends events until it
 * resolves or its signal aborts: the client went away (the stream is unpiped from the socket) or
 * the lifetime passed. The stream then ends. A follower's failure ends it too (logged): the page
 * falls back to polling the status route, which answers the error itself.
 */
export function progressEventStream(follow: (send: Send, signal: AbortSignal) => Promise<void>, log: { warn(obj: object, msg: string): void }): Reply {
  const stream = new PassThrough();
  const abort = new AbortController();
  const send: Send = (event, data) => {
    if (!stream.writableEnded) stream.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
  };
  const keepAlive = setInterval(() => !stream.writableEnded && stream.write(': keep-alive\n\n'), KEEP_ALIVE_MS);
  const lifetime = setTimeout(() => abort.abort(), STREAM_LIFETIME_MS);
  stream.on('unpipe', () => abort.abort());
  stream.on('close', () => abort.abort());
  // The client reconnects after this long should the stream end before the verification does.
  stream.write('retry: 3000\n\n');
  follow(send, abort.signal)
    .catch((error: unknown) => log.warn({ err: error }, 'a progress stream ended on an error'))
    .finally(() => {
      clearInterval(keepAlive);
      clearTimeout(lifetime);
      stream.end();
    });
  return {
    status: 200,
    headers: { 'Content-Type': 'text/event-stream; charset=utf-8', 'Cache-Control': 'no-store', 'X-Accel-Buffering': 'no', 'X-Content-Type-Options': 'nosniff' },
    stream,
  };
}
