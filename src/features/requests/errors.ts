import { AppError, ConflictError, NotFoundError, UnprocessableError } from '../../core/errors.js';
import { defineErrors } from '../../core/errors.js';

/** Error codes of this feature and their HTTP statuses (docs/errors.md documents each). */
export const requestErrors = defineErrors({
  /** Spec 7: creating a request while the account has no name (the provider is shown who asks). */
  ACCOUNT_NAME_REQUIRED: 400,
  /** No such request in your account (deleted ones included); for a provider: no request with this token. */
  REQUEST_NOT_FOUND: 404,
  /** Spec 3.3: DELETE of a request that has submissions. */
  REQUEST_HAS_SUBMISSIONS: 409,
  /** A submission to a closed request. */
  REQUEST_CLOSED: 409,
  /** A submission to a request whose max_submissions are all used. */
  REQUEST_FULL: 409,
  /** A capture call (challenge, attestation) through the link of a request whose mode is not `capture`. */
  REQUEST_NOT_CAPTURE: 409,
  /** A submission after the request's expires_at. */
  REQUEST_EXPIRED: 410,
});

type Codes = typeof requestErrors;
declare module '../../core/errors.js' {
  interface ErrorCodes extends Codes {}
}

export const requestNotFound = () =>
  new NotFoundError('REQUEST_NOT_FOUND', 'No such verification request.', { suggestion: 'List your requests with GET /v1/requests.' });

/** For a provider: an unknown token looks like a missing request (nothing tells a guess apart). */
export const unknownRequestToken = () =>
  new NotFoundError('REQUEST_NOT_FOUND', 'No verification request has this link.', { suggestion: 'Check the link you were given, or ask the requester for a new one.' });

export const accountNameRequired = () =>
  new AppError('ACCOUNT_NAME_REQUIRED', 'Your account has no name; a request shows the provider who asks by it.', {
    suggestion: 'Give your account a name, then create the request.',
  });

export const requestHasSubmissions = (count: number) =>
  new ConflictError('REQUEST_HAS_SUBMISSIONS', `The request has ${count} submission${count === 1 ? '' : 's'} and cannot be deleted.`, {
    suggestion: 'Close it instead: PATCH /v1/requests/{request_id} with {"status": "closed"}.',
    details: { submission_count: count },
  });

/** A well-formed PATCH or POST the request's rules refuse: 422 VALIDATION_ERROR (the envelope). */
export const invalidUpdate = (message: string, suggestion: string) => new UnprocessableError(message, { suggestion });

export const requestClosed = () =>
  new ConflictError('REQUEST_CLOSED', 'This verification request is closed and accepts no more submissions.', { suggestion: 'Ask the requester for a new link.' });

export const requestFull = (max: number) =>
  new ConflictError('REQUEST_FULL', `This verification request has received all ${max} submission${max === 1 ? '' : 's'} it accepts.`, {
    suggestion: 'Ask the requester for a new link.',
    details: { max_submissions: max },
  });

export const requestNotCapture = () =>
  new ConflictError('REQUEST_NOT_CAPTURE', 'This verification request asks for an existing original, not a capture: it issues no capture challenge and takes no attestation.', {
    suggestion: 'Upload the photo (and its RAW) with the form on the request’s page.',
  });

export const requestExpired = (expiresAt: string) =>
  new AppError('REQUEST_EXPIRED', `This verification request expired at ${expiresAt}.`, { suggestion: 'Ask the requester for a new link.', details: { expires_at: expiresAt } });
