/**
 * The verifications feature's public entry: what other features use (a feature reaches another
 * only through its index.ts or its events.ts). Each line is used by another feature.
 */
export { readerOf } from './anonymous.js';
export { verificationNotFound } from './errors.js';
export { verificationIdParam } from './params.js';
export { findVerification, imageOf, rawOf, renditionsOf, resultsOf, verificationsTable, type ResultRow, type VerificationRow } from '../../../projections/verifications/index.js';
export { captureOf, resultFields, verificationFields } from './view.js';
export { levelWords, reasonWords, verdictWords } from './words.js';
export { createVerification, getVerification, listVerifications } from './use-cases.js';
export { listQuery } from './routes.js';
export { deleteVerification, fileUrl } from './use-cases.js';
export { UPLOAD_PARTS } from './use-cases.js';
export { UPLOAD_FORM_SCRIPT } from './upload-form-script.js';
export { FAILED_LABEL, failureOf, type FailureExplanation } from './failure.js';
export { followProgress, progressOf, progressStepWords, PROGRESS_STEPS, type ProgressStep, type VerificationProgress } from './progress.js';
