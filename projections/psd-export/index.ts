/**
 * The PSD export read side's public entry for other features: the fold the audit bundle and its
 * verifier replay (pure: the auditor's page and the CLI load it without the projector).
 */
export { replayStream as replayPsdExportStream } from './replay.js';
export * from './queries.js';
