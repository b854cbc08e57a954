/**
 * The verifications read side's public entry for the write side and other features: the fold the
 * audit bundle and its verifier replay (pure: the auditor's page and the CLI load it without the
 * projector), and the summary a read-model row is shown with. The projector is paired with the
 * feature by the composition root (src/modules.ts), never imported from here.
 */
export { replayStream as replayVerificationStream, verificationSummary, type ReplayedResult, type VerificationState } from './replay.js';
export * from './queries.js';
