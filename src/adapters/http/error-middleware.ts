import type { ErrorRequestHandler, RequestHandler, Response } from 'express';
import { AppError, UnprocessableError, errorEnvelope, type ErrorStatuses } from '../../core/errors.js';
import type { ErrorPageInput, Reply } from '../../core/http/route-spec.js';

/**
 * The one place where errors become HTTP responses:
 *   AppError            -> its code's status in the catalogue (derived from the module list), {"detail": {error_code, message, suggestion}}
 *   StateValidationError -> 409, VALIDATION_ERROR in the envelope (a state that does not allow the request)
 *   UnprocessableError  -> 422: with issues (a request of the wrong shape), {"detail": [{loc, msg, type}]};
 *                          without (a domain rule the spec answers with 422), the envelope
 *   body parser errors  -> 422 (malformed JSON), 413 (too large), 415 (unknown encoding or charset),
 *                          400 (a body that is not what its Content-Encoding says)
 *   a body the client stopped sending -> 400, logged as the client's abort (warn), never as a 500
 *   malformed %-escapes in a path parameter -> 400 VALIDATION_ERROR (express's URIError)
 *   anything else       -> 500 INTERNAL_ERROR, logged with the request id, no internals leaked
 * A page route (RouteSpec.errorPage) gets the same status with its HTML error page instead of the JSON body.
 */
export const errorMiddleware = (catalogue: ErrorStatuses): ErrorRequestHandler => (error, req, res, _next) => {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  if (error instanceof UnprocessableError && error.issues) {
    answer(res, 422, { detail: error.issues });
    return;
  }
  if (error instanceof AppError) {
    // A limit (429) or a busy service (503) says when to come back.
    if (typeof error.details?.retry_after_seconds === 'number') {
      res.setHeader('Retry-After', String(error.details.retry_after_seconds));
    }
    const status = error.statusIn(catalogue);
    if (status === 401) res.setHeader('WWW-Authenticate', 'Bearer');
    answer(res, status, errorEnvelope(error));
    return;
  }
  const parserError = error as { type?: string; status?: number; limit?: number; message?: string };
  if (parserError.type === 'entity.parse.failed') {
    answer(res, 422, { detail: [{ loc: ['body'], msg: `Malformed JSON: ${parserError.message}`, type: 'json_invalid' }] });
    return;
  }
  if (parserError.type === 'entity.too.large') {
    answer(res, 413, errorEnvelope(new AppError('PAYLOAD_TOO_LARGE', `The request body is larger than the limit of ${parserError.limit} bytes.`, {
      suggestion: 'Send a smaller body; files go to the multipart upload endpoints.',
    })));
    return;
  }
  if (parserError.type === 'request.aborted') {
    // The client closed the connection while sending its body: its own doing, not a fault of the
    // service, logged at the status the error carries (400) so 5xx counts stay true (issue 36 item 15).
    req.log?.warn({ status: parserError.status ?? 400 }, 'client aborted the request while sending its body');
    answer(res, parserError.status ?? 400, errorEnvelope(new AppError('VALIDATION_ERROR', 'The request body ended before its Content-Length.', { suggestion: 'Send the whole body.' })));
    return;
  }
  if (parserError.type === 'encoding.unsupported' || parserError.type === 'charset.unsupported') {
    answer(res, 415, errorEnvelope(new AppError('UNSUPPORTED_MEDIA_TYPE', parserError.message ?? 'Unsupported body encoding.', { suggestion: 'Send UTF-8 JSON.' })));
    return;
  }
  if (isMalformedPathEscape(error)) {
    answer(res, 400, errorEnvelope(new AppError('VALIDATION_ERROR', 'The URL path holds a malformed percent-encoding (a % not followed by two hexadecimal digits, or bytes that are not UTF-8).', {
      suggestion: 'Percent-encode each reserved or non-ASCII character of a path segment as %XX of its UTF-8 bytes (e.g. encodeURIComponent).',
    })));
    return;
  }
  if (isUndecodableBody(error)) {
    const encoding = String(req.headers['content-encoding'] ?? '').toLowerCase();
    answer(res, 400, errorEnvelope(new AppError('VALIDATION_ERROR', `The body is not valid ${encoding} data, as its Content-Encoding header says it is.`, {
      suggestion: 'Send the body uncompressed without a Content-Encoding header, or compressed as the header says (gzip, deflate or br).',
    })));
    return;
  }
  req.log?.error({ err: error }, 'unhandled error');
  answer(res, 500, errorEnvelope(new AppError('INTERNAL_ERROR', 'The service failed to handle this request.', {
    suggestion: `Retry later; if it persists, report request id ${String(req.id ?? 'unknown')}.`,
  })));
};

export const notFoundHandler: RequestHandler = (req, res) => {
  answer(res, 404, errorEnvelope(new AppError('NOT_FOUND', `No route ${req.method} ${req.path}.`, {
    suggestion: 'See /openapi.json for the list of endpoints.',
  })));
};

/** The error's answer: the JSON body, or the route's HTML error page with the same status. */
function answer(res: Response, status: number, body: { detail: unknown }): void {
  const page = res.locals.errorPage as ((error: ErrorPageInput) => Reply) | undefined;
  if (!page) {
    res.status(status).json(body);
    return;
  }
  const detail = body.detail as { error_code?: string; message?: string; suggestion?: string } | { msg: string }[];
  const input: ErrorPageInput = Array.isArray(detail)
    ? { status, code: 'VALIDATION_ERROR', message: detail.map((issue) => issue.msg).join(' ') }
    : { status, code: detail.error_code ?? 'ERROR', message: detail.message ?? '', ...(detail.suggestion ? { suggestion: detail.suggestion } : {}) };
  const reply = page(input);
  for (const [name, value] of Object.entries(reply.headers ?? {})) res.setHeader(name, value);
  res.status(status).setHeader('Content-Type', 'text/html; charset=utf-8');
  res.send(reply.html ?? '');
}

/** express's router could not percent-decode a path parameter (it throws a URIError with status 400). */
const isMalformedPathEscape = (error: unknown): boolean => error instanceof URIError;

/**
 * The body parser's inflate stream (Content-Encoding gzip, deflate or br) failed: zlib's errors
 * carry a numeric errno and a Z_… code, brotli's an ERR__… code.
 */
function isUndecodableBody(error: unknown): boolean {
  const { code, errno } = error as { code?: unknown; errno?: unknown };
  return typeof errno === 'number' && typeof code === 'string' && (code.startsWith('Z_') || code.startsWith('ERR__'));
}
