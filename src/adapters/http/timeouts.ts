import type { RequestHandler } from 'express';

/**
 * How long a connection may take, sized for a large upload on a slow link (issue 36 item 14):
 * - headers: a request's headers arrive within HEADERS_TIMEOUT_MS (a slow-headers client is
 *   answered 408 and dropped; checked every CONNECTIONS_CHECK_MS instead of Node's 30 s);
 * - the whole request: at least MIN_UPLOAD_BYTES_PER_SECOND for the largest accepted upload, and
 *   never under 10 minutes;
 * - a body that stops: no byte for BODY_IDLE_TIMEOUT_MS while a body is being received drops
 *   the connection (bodyIdleGuard), so a stalled upload does not hold a socket for the whole
 *   request time;
 * - idle keep-alive: longer than the idle timeout of the proxies in front (60 s for most load
 *   balancers), so the server never closes a socket at the moment a proxy reuses it.
 * Caps on connections per client are the proxy's (docs/operations.md).
 */
export const HEADERS_TIMEOUT_MS = 20_000;
export const CONNECTIONS_CHECK_MS = 1_000;
export const BODY_IDLE_TIMEOUT_MS = 60_000;
export const KEEP_ALIVE_TIMEOUT_MS = 65_000;
export const MIN_UPLOAD_BYTES_PER_SECOND = 64 * 1024;
const MIN_REQUEST_TIMEOUT_MS = 10 * 60_000;

/** The request time the largest upload (one image and one RAW of `maxUploadBytes` each) needs at the slowest rate served. */
export function requestTimeoutMs(maxUploadBytes: number): number {
  return Math.max(MIN_REQUEST_TIMEOUT_MS, Math.ceil(((2 * maxUploadBytes) / MIN_UPLOAD_BYTES_PER_SECOND) * 1000));
}

/** The options of http.createServer and the properties set on the server, from the upload limit. */
export function serverTimeouts(maxUploadBytes: number) {
  return { headersTimeout: HEADERS_TIMEOUT_MS, requestTimeout: requestTimeoutMs(maxUploadBytes), keepAliveTimeout: KEEP_ALIVE_TIMEOUT_MS, connectionsCheckingInterval: CONNECTIONS_CHECK_MS };
}

/**
 * While a request's body is being received, a socket without a byte for `idleMs` is destroyed
 * (Node destroys a timed-out socket nobody listens for). The guard ends with the body: a long
 * answer (an MCP call waiting for its result) is not a stalled upload.
 */
export function bodyIdleGuard(idleMs = BODY_IDLE_TIMEOUT_MS): RequestHandler {
  return (req, _res, next) => {
    const hasBody = req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0;
    if (hasBody && !req.complete) {
      const socket = req.socket;
      socket.setTimeout(idleMs);
      const done = () => socket.setTimeout(0);
      req.once('end', done);
      req.once('close', done);
    }
    next();
  };
}
