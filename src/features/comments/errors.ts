import { defineErrors } from '../../core/errors.js';

/** Error codes of this feature and their HTTP statuses (docs/errors.md documents each). */
export const commentErrors = defineErrors({
  /** Spec 7: no such comment on this verification (deleted, another verification's, unknown). */
  COMMENT_NOT_FOUND: 404,
});

type Codes = typeof commentErrors;
declare module '../../core/errors.js' {
  interface ErrorCodes extends Codes {}
}
