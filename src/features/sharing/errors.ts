import { defineErrors } from '../../core/errors.js';

/** Error codes of this feature and their HTTP statuses (docs/errors.md documents each). */
export const sharingErrors = defineErrors({
  /** Spec 7: a bad start_date or end_date on view analytics. */
  INVALID_FORMAT: 400,
  /** Spec 7: an invite on a verification that is not shared, or not shared as restricted. */
  SHARE_NOT_FOUND: 400,
  /** The verification is not shared (owner endpoints), or a share link is unknown or no longer valid. */
  NOT_SHARED: 404,
  /** Revoking an address that is not invited. */
  INVITE_NOT_FOUND: 404,
});

type Codes = typeof sharingErrors;
declare module '../../core/errors.js' {
  interface ErrorCodes extends Codes {}
}
