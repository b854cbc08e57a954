import { AppError, defineErrors, NotFoundError } from '../../core/errors.js';

/** Error codes of this feature and their HTTP statuses (docs/errors.md documents each). */
export const uploadErrors = defineErrors({
  /** An upload id that is malformed, forged, another caller's, or whose file was never sent or already used. */
  UPLOAD_NOT_FOUND: 404,
  /** The file of this upload id has already been sent (each upload URL takes one PUT). */
  UPLOAD_ALREADY_RECEIVED: 409,
  /** The upload URL (and its id) is older than its 1-hour validity; its unused file is deleted soon after. */
  UPLOAD_EXPIRED: 410,
});

type Codes = typeof uploadErrors;
declare module '../../core/errors.js' {
  interface ErrorCodes extends Codes {}
}

export const uploadNotFound = () =>
  new NotFoundError('UPLOAD_NOT_FOUND', 'No file was received for this upload id, or it is not yours, or it has been used.', {
    suggestion: 'Call create_upload, PUT the file to the upload_url it returns, then pass the upload_id.',
  });

export const uploadExpired = () =>
  new AppError('UPLOAD_EXPIRED', 'This upload id is older than its 1-hour validity.', { suggestion: 'Call create_upload again and send the file to the new URL.' });

export const uploadAlreadyReceived = () =>
  new AppError('UPLOAD_ALREADY_RECEIVED', 'The file of this upload id has already been received.', { suggestion: 'Pass the upload_id to a verify tool; for another file, call create_upload again.' });
