/**
 * The one error model. Domain, analysis and provenance code throw these; exactly one place
 * (src/api/error-middleware.ts) turns them into HTTP responses, using the status kept in the
 * catalogue below. Every code is documented in docs/errors.md (a test keeps the two in step).
 */
export const errorCatalogue = {
  // 400
  VALIDATION_ERROR: 400,
  INVALID_FORMAT: 400,
  SHARE_NOT_FOUND: 400,
  INVALID_ATTESTATION: 400,
  ATTESTATION_NOT_FOUND: 400,
  ACCOUNT_NAME_REQUIRED: 400,
  UNSUPPORTED_FORMAT: 400,
  CORRUPT_FILE: 400,
  // 401
  AUTHENTICATION_REQUIRED: 401,
  INVALID_CREDENTIALS: 401,
  INVALID_TOKEN: 401,
  INVALID_API_KEY: 401,
  // 402
  QUOTA_EXCEEDED: 402,
  BUDGET_EXCEEDED: 402,
  // 403
  ACCESS_DENIED: 403,
  NOT_ENTITLED: 403,
  DOWNLOAD_LIMIT_REACHED: 403,
  // 404
  NOT_FOUND: 404,
  VERIFICATION_NOT_FOUND: 404,
  TAG_NOT_FOUND: 404,
  COMMENT_NOT_FOUND: 404,
  PSD_EXPORT_NOT_FOUND: 404,
  API_KEY_NOT_FOUND: 404,
  REQUEST_NOT_FOUND: 404,
  STREAM_NOT_FOUND: 404,
  ACCOUNT_NOT_FOUND: 404,
  // 409
  ALREADY_CLAIMED: 409,
  CONFLICT: 409,
  EMAIL_TAKEN: 409,
  TAG_EXISTS: 409,
  PSD_NOT_READY: 409,
  REQUEST_HAS_SUBMISSIONS: 409,
  // 410
  CLAIM_EXPIRED: 410,
  EXPIRED: 410,
  // 413
  PAYLOAD_TOO_LARGE: 413,
  // 415
  UNSUPPORTED_MEDIA_TYPE: 415,
  // 422
  HASH_MISMATCH: 422,
  UNPROCESSABLE_FILE: 422,
  // 429
  RATE_LIMIT_EXCEEDED: 429,
  // 500 / 503
  INTERNAL_ERROR: 500,
  SERVICE_UNAVAILABLE: 503,
} as const;

export type ErrorCode = keyof typeof errorCatalogue;

export interface ErrorOptions {
  suggestion?: string;
  details?: Record<string, unknown>;
  cause?: unknown;
}

export class AppError extends Error {
  readonly suggestion?: string;
  readonly details?: Record<string, unknown>;

  constructor(
    readonly code: ErrorCode,
    message: string,
    options: ErrorOptions = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.suggestion = options.suggestion;
    this.details = options.details;
  }

  /** The HTTP status lives in the catalogue; only the error middleware reads it. */
  get status(): number {
    return errorCatalogue[this.code];
  }
}

export class ValidationError extends AppError {
  constructor(message: string, options?: ErrorOptions) {
    super('VALIDATION_ERROR', message, options);
  }
}

export class NotFoundError extends AppError {}
export class ConflictError extends AppError {}
export class AccessDeniedError extends AppError {
  constructor(message = 'You do not have access to this resource.', options?: ErrorOptions) {
    super('ACCESS_DENIED', message, options);
  }
}
export class AuthenticationError extends AppError {}

/** A file the service cannot use: wrong format, truncated, corrupt. Never a crash. */
export class FileError extends AppError {}

/** Optimistic concurrency: the stream was not at the revision the command was decided on. */
export class WrongExpectedRevisionError extends AppError {
  constructor(
    readonly stream: string,
    readonly expected: bigint | 'no_stream' | 'any',
    readonly actual: bigint | 'no_stream',
  ) {
    super('CONFLICT', `Stream ${stream} changed concurrently (expected ${String(expected)}, found ${String(actual)}).`, {
      suggestion: 'Retry the request.',
    });
  }
}
