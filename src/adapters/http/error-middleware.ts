import type { ErrorRequestHandler, RequestHandler } from 'express';
import { AppError, type ErrorStatuses } from '../../core/errors.js';
import { RequestValidationError } from '../../core/validation.js';

/**
 * The one place where errors become HTTP responses:
 *   AppError            -> its code's status in the catalogue (derived from the module list), {"detail": {error_code, message, suggestion}}
 *   request validation  -> 422, {"detail": [{loc, msg, type}]}
 *   body parser errors  -> 422 (malformed JSON) or 413 (too large)
 *   anything else       -> 500 INTERNAL_ERROR, logged with the request id, no internals leaked
 */
export const errorMiddleware = (catalogue: ErrorStatuses): ErrorRequestHandler => (error, req, res, _next) => {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  if (error instanceof RequestValidationError) {
    res.status(422).json({ detail: error.issues });
    return;
  }
  if (error instanceof AppError) {
    if (error.code === 'RATE_LIMIT_EXCEEDED' && typeof error.details?.retry_after_seconds === 'number') {
      res.setHeader('Retry-After', String(error.details.retry_after_seconds));
    }
    const status = catalogue[error.code] ?? 500;
    if (status === 401) res.setHeader('WWW-Authenticate', 'Bearer');
    res.status(status).json(envelope(error));
    return;
  }
  const parserError = error as { type?: string; status?: number; limit?: number; message?: string };
  if (parserError.type === 'entity.parse.failed') {
    res.status(422).json({ detail: [{ loc: ['body'], msg: `Malformed JSON: ${parserError.message}`, type: 'json_invalid' }] });
    return;
  }
  if (parserError.type === 'entity.too.large') {
    res.status(413).json(envelope(new AppError('PAYLOAD_TOO_LARGE', `The request body is larger than the limit of ${parserError.limit} bytes.`, {
      suggestion: 'Send a smaller body; files go to the multipart upload endpoints.',
    })));
    return;
  }
  if (parserError.type === 'encoding.unsupported' || parserError.type === 'charset.unsupported') {
    res.status(415).json(envelope(new AppError('UNSUPPORTED_MEDIA_TYPE', parserError.message ?? 'Unsupported body encoding.', { suggestion: 'Send UTF-8 JSON.' })));
    return;
  }
  req.log?.error({ err: error }, 'unhandled error');
  res.status(500).json(envelope(new AppError('INTERNAL_ERROR', 'The service failed to handle this request.', {
    suggestion: `Retry later; if it persists, report request id ${String(req.id ?? 'unknown')}.`,
  })));
};

export const notFoundHandler: RequestHandler = (req, res) => {
  res.status(404).json(envelope(new AppError('NOT_FOUND', `No route ${req.method} ${req.path}.`, {
    suggestion: 'See /openapi.json for the list of endpoints.',
  })));
};

export function envelope(error: AppError): { detail: Record<string, unknown> } {
  return {
    detail: {
      error_code: error.code,
      message: error.message,
      ...(error.suggestion ? { suggestion: error.suggestion } : {}),
      ...(error.details ? { details: error.details } : {}),
    },
  };
}
