import { defineErrors } from '../../core/errors.js';

/** Error codes of this feature and their HTTP statuses (docs/errors.md documents each). */
export const attestationErrors = defineErrors({
  INVALID_ATTESTATION: 400,
  ATTESTATION_NOT_FOUND: 400,
  HASH_MISMATCH: 422,
});

type Codes = typeof attestationErrors;
declare module '../../core/errors.js' {
  interface ErrorCodes extends Codes {}
}
