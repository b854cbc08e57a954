import { defineErrors } from '../../core/errors.js';

/** Error codes of this feature and their HTTP statuses (docs/errors.md documents each). */
export const verificationErrors = defineErrors({
  VERIFICATION_NOT_FOUND: 404,
  ALREADY_CLAIMED: 409,
  CLAIM_EXPIRED: 410,
});

type Codes = typeof verificationErrors;
declare module '../../core/errors.js' {
  interface ErrorCodes extends Codes {}
}
