import { defineErrors } from '../../core/errors.js';

/** Error codes of this feature and their HTTP statuses (docs/errors.md documents each). */
export const accountErrors = defineErrors({
  EMAIL_TAKEN: 409,
  ACCOUNT_NOT_FOUND: 404,
  /** A user id that is not a user of the caller's account (another account's, or removed). */
  USER_NOT_FOUND: 404,
  /** An invitation link that is unknown, already used, or withdrawn (the user was removed). */
  INVITATION_NOT_FOUND: 404,
  /** An invitation link past its expiry (7 days). */
  INVITATION_EXPIRED: 410,
  /** A password reset link that is unknown, used, replaced by a newer one, or whose user was removed. */
  RESET_LINK_NOT_FOUND: 404,
  /** A password reset link past its expiry (1 hour). */
  RESET_LINK_EXPIRED: 410,
  /** Removing or demoting the only admin of an account. */
  LAST_ADMIN: 409,
});

type Codes = typeof accountErrors;
declare module '../../core/errors.js' {
  interface ErrorCodes extends Codes {}
}
