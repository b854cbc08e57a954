import { defineErrors } from '../../core/errors.js';

/** Error codes of this feature and their HTTP statuses (docs/errors.md documents each). */
export const uploadErrors = defineErrors({
  /** An upload id that is malformed, forged, another caller's, or whose file was never sent or already used. */
  UPLOAD_NOT_FOUND: 404,
  /** The file of this upload id has already been sent (each upload URL takes one PUT). */
  UPLOAD_ALREADY_RECEIVED: 409,
  /** The upload URL (and its id) is older than its 1-hour validity. */
  UPLOAD_EXPIRED: 410,
});

type Codes = typeof uploadErrors;
declare module '../../core/errors.js' {
  interface ErrorCodes extends Codes {}
}
