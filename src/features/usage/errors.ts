import { defineErrors } from '../../core/errors.js';

/** Error codes of this feature and their HTTP statuses (docs/errors.md documents each). */
export const usageErrors = defineErrors({
  QUOTA_EXCEEDED: 402,
  BUDGET_EXCEEDED: 402,
  NOT_ENTITLED: 403,
});

type Codes = typeof usageErrors;
declare module '../../core/errors.js' {
  interface ErrorCodes extends Codes {}
}
