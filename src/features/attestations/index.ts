/**
 * The attestations feature's public entry: what other features use (a feature reaches another
 * only through its index.ts or its events.ts). Each line is used by another feature.
 */
export { redeemAttestation, validateAttestationForUpload, type CaptureFacts } from './redeem.js';
export { attestCapture, issueChallenge } from './use-cases.js';
