/**
 * Names and messages shared by the workflow bundle and the Node side. No imports: the workflow
 * bundle (workflows.ts) may only import deterministic code.
 */
export const VERIFICATION_WORKFLOW = 'verificationWorkflow';
export const workflowIdFor = (verificationId: string) => `verification-${verificationId}`;

/** ApplicationFailure types thrown by the activities. */
export const REJECTED = 'VerificationRejected'; // a business failure: the reason is the message, never retried
export const STEP_FAILED = 'VerificationStepFailed'; // unexpected: retried, then fails the verification generically

export const DEADLINE_REASON = 'The verification did not complete within 10 minutes.';
