import { AppError, defineErrors, NotFoundError } from '../../core/errors.js';

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

/**
 * The 404 for a verification the caller cannot see: missing, deleted, or another account's (its
 * existence stays hidden). Every feature that acts on a verification answers with this one (the
 * rendition advice gives its own message and suggestion, still under this code).
 */
export const verificationNotFound = (message = 'Verification not found.', suggestion = 'List your verifications with GET /v1/verifications/.') =>
  new NotFoundError('VERIFICATION_NOT_FOUND', message, { suggestion });

/** A claim of anonymous verifications whose 30-day window has ended (the decider's refusal, and the use case's when none is left to claim). */
export const claimExpired = () => new AppError('CLAIM_EXPIRED', 'These verifications are older than the 30-day claim window.', { suggestion: 'Verify the files again from your account.' });
