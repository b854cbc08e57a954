import { defineErrors } from '../../core/errors.js';

/** Error codes of this feature and their HTTP statuses (docs/errors.md documents each). */
export const usageErrors = defineErrors({
  QUOTA_EXCEEDED: 402,
});

type Codes = typeof usageErrors;
declare module '../../core/errors.js' {
  interface ErrorCodes extends Codes {}
}
