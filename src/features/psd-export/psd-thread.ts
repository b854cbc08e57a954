/**
 * Worker-thread entry that renders one PSD export (psd-render.ts). One thread per export,
 * terminated afterwards (psd-file.ts): its buffers, decoders and modules go with it.
 */
import { parentPort } from 'node:worker_threads';
import { AppError } from '../../core/errors.js';
import { renderPsd, type PsdJob, type RenderedPsd } from './psd-render.js';

export type PsdReply =
  | { ok: true; psd: RenderedPsd }
  | { ok: false; appError?: { code: AppError['code']; message: string; suggestion?: string }; message: string };

parentPort?.once('message', (job: PsdJob) => {
  // Every failure of the render is a reply; a reply that cannot be posted fails the thread: thrown
  // outside the promise, it reaches renderInThread as the worker's 'error'.
  answer(job).catch((error: unknown) => queueMicrotask(() => { throw error; }));
});

async function answer(job: PsdJob): Promise<void> {
  let reply: PsdReply;
  try {
    const psd = await renderPsd(job);
    // The file's buffers move to the parent, not copied.
    parentPort!.postMessage({ ok: true, psd } satisfies PsdReply, [...new Set(psd.parts.map((p) => p.buffer as ArrayBuffer))]);
    return;
  } catch (error) {
    reply =
      error instanceof AppError
        ? { ok: false, appError: { code: error.code, message: error.message, suggestion: error.suggestion }, message: error.message }
        : { ok: false, message: (error as Error)?.stack ?? String(error) };
  }
  parentPort!.postMessage(reply);
}
