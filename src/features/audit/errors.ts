import { defineErrors } from '../../core/errors.js';

/** Error codes of this feature and their HTTP statuses (docs/errors.md documents each). */
export const auditErrors = defineErrors({
  STREAM_NOT_FOUND: 404,
});

type Codes = typeof auditErrors;
declare module '../../core/errors.js' {
  interface ErrorCodes extends Codes {}
}
