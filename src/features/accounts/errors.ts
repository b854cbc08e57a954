import { defineErrors } from '../../core/errors.js';

/** Error codes of this feature and their HTTP statuses (docs/errors.md documents each). */
export const accountErrors = defineErrors({
  EMAIL_TAKEN: 409,
  ACCOUNT_NOT_FOUND: 404,
});

type Codes = typeof accountErrors;
declare module '../../core/errors.js' {
  interface ErrorCodes extends Codes {}
}
