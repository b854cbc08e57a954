/**
 * The one error model. Domain, analysis and provenance code throw these; exactly one place
 * (src/adapters/http/error-middleware.ts) turns them into HTTP responses. A code's status
 * lives in a catalogue: the generic codes below, and each feature's own (its errors.ts,
 * listed in its module), so the service's catalogue is derived from the module list
 * (src/modules.ts). docs/errors.md documents every code; a test keeps the two in step.
 */
export const coreErrors = {
  VALIDATION_ERROR: 400,
  UNSUPPORTED_FORMAT: 400,
  CORRUPT_FILE: 400,
  AUTHENTICATION_REQUIRED: 401,
  INVALID_CREDENTIALS: 401,
  INVALID_TOKEN: 401,
  INVALID_API_KEY: 401,
  ACCESS_DENIED: 403,
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  CONFLICT: 409,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  UNPROCESSABLE_FILE: 422,
  RATE_LIMIT_EXCEEDED: 429,
  INTERNAL_ERROR: 500,
  SERVICE_UNAVAILABLE: 503,
} as const;

/**
 * Codes the interface spec names for features not built yet (none today: the last, verification
 * requests', moved to src/features/requests/errors.ts). Nothing throws them; each moves to its feature's catalogue
 * when that feature arrives. docs/errors.md marks them reserved.
 */
export const reservedErrors = {} as const;

export type ErrorStatuses = Readonly<Record<string, number>>;

/**
 * Every code the service can throw. Features add theirs by augmenting this interface next to
 * their catalogue (see defineErrors), so a typo in a code is a compile error.
 */
export interface ErrorCodes extends CoreErrorCodes {}
type CoreErrorCodes = typeof coreErrors;

export type ErrorCode = Extract<keyof ErrorCodes, string>;

/** A feature's own codes and their statuses (pair it with an `ErrorCodes` augmentation). */
export function defineErrors<const T extends Record<string, number>>(codes: T): T {
  return codes;
}

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

  /**
   * The error's status in the service's catalogue (src/modules.ts errorCatalogue, in CoreDeps):
   * its kind first (UnprocessableError 422, StateValidationError 409), else its code's status;
   * a code the catalogue does not know is the service's fault (500). The one rule the error
   * middleware answers with and the web app's forms read.
   */
  statusIn(catalogue: ErrorStatuses): number {
    if (this instanceof UnprocessableError) return 422;
    if (this instanceof StateValidationError) return 409;
    return catalogue[this.code] ?? 500;
  }

  /**
   * Whether the caller can do something about it (the catalogue's 4xx: what was sent, who sent
   * it, the state it met), as against the service's own failure (5xx). A form shows the user's
   * errors again, saying them; the service's go to the error page.
   */
  isUserError(catalogue: ErrorStatuses): boolean {
    const status = this.statusIn(catalogue);
    return status >= 400 && status < 500;
  }
}

export class ValidationError extends AppError {
  constructor(message: string, options?: ErrorOptions) {
    super('VALIDATION_ERROR', message, options);
  }
}

/** One item of the spec's 422 list form: `{"detail": [{"loc", "msg", "type"}]}`. */
export interface ValidationIssue {
  loc: (string | number)[];
  msg: string;
  type: string;
}

/**
 * The one 422 error: a request the service understood and will not act on. Its two kinds keep
 * the spec's two bodies (docs/errors.md, "Two 422 shapes, one rule"), and each kind has one home:
 * - with `issues`: the request's shape is wrong, refused at the edge by the route's or tool's
 *   zod schema (fields, types, formats, sets, ranges; core/http/validation.ts invalidRequest): the list
 *   form `{"detail": [{loc, msg, type}]}`;
 * - without: a well-formed request breaks a rule of the domain the spec answers with 422
 *   `VALIDATION_ERROR` (tag names and colours, comment bodies, tags per verification, comments
 *   per verification), decided by the feature's decider and the pure checks it calls: the envelope.
 * The kind, not the code, chooses the status (the code's usual one is 400): the error middleware
 * maps it, as it maps every error.
 */
export class UnprocessableError extends AppError {
  readonly issues?: ValidationIssue[];

  constructor(message: string, options: ErrorOptions & { issues?: ValidationIssue[] } = {}) {
    const { issues, ...rest } = options;
    super('VALIDATION_ERROR', message, rest);
    if (issues) this.issues = issues;
  }
}

/**
 * The spec's 409 `VALIDATION_ERROR`: a well-formed request on a resource whose state does not
 * allow it (a PSD export of a verification that is not completed, or image-only). The kind
 * chooses the status, as for UnprocessableError.
 */
export class StateValidationError extends AppError {
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

/**
 * Optimistic concurrency: the stream was not at the revision the command was decided on.
 * runCommand decides again on fresh state; this answers a request only when other writers kept
 * winning past its retries. That is the service being busy, not the caller's conflict (the spec
 * gives independent writes no 409), so it is a 503 with Retry-After. The message names no
 * stream: `stream`, `expected` and `actual` are for logs.
 */
export class WrongExpectedRevisionError extends AppError {
  constructor(
    readonly stream: string,
    readonly expected: bigint | 'no_stream' | 'any',
    readonly actual: bigint | 'no_stream',
  ) {
    super('SERVICE_UNAVAILABLE', 'Too many changes to the same record arrived at once; this one was not recorded.', {
      suggestion: 'Retry the request in a second.',
      details: { retry_after_seconds: 1 },
    });
  }
}

/** The one error body every JSON answer carries, whichever door sends it (the API, a worker's listener). */
export function errorEnvelope(error: AppError): { detail: Record<string, unknown> } {
  return {
    detail: {
      error_code: error.code,
      message: error.message,
      ...(error.suggestion ? { suggestion: error.suggestion } : {}),
      ...(error.details ? { details: error.details } : {}),
    },
  };
}
