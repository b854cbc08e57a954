import { defineErrors } from '../../core/errors.js';

/** Error codes of this feature and their HTTP statuses (docs/errors.md documents each). */
export const tagErrors = defineErrors({
  /** Spec 7: no such tag in the account, or not on the verification it is detached from. */
  TAG_NOT_FOUND: 404,
  /** Spec 4.4: the name is taken in the account's vocabulary (case-insensitive). */
  TAG_EXISTS: 409,
});

type Codes = typeof tagErrors;
declare module '../../core/errors.js' {
  interface ErrorCodes extends Codes {}
}
