import { stableId } from './tokens.js';

/**
 * The ids of the sharing notifications: determined by what the share stream records, so the
 * request that caused one, a retry of it and the recovery sweep (workflow.ts) all queue the same
 * message id, which the mail port queues once.
 */

/** The invitation of one address (its nonce changes when it is revoked and invited again). */
export const invitationMailId = (verificationId: string, invitationNonce: string): string =>
  stableId('photoverify-share-invitation', verificationId, invitationNonce);

/** The notice to an invited address of the share's `accessChanges`-th change of access type. */
export const accessChangedMailId = (verificationId: string, shareNonce: string, accessChanges: number, email: string): string =>
  stableId('photoverify-share-access-changed', verificationId, shareNonce, String(accessChanges), email);
