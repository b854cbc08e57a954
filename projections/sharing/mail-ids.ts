import crypto from 'node:crypto';

/**
 * The ids of the sharing notifications: determined by what the share stream records, so the
 * request that caused one, a retry of it and the recovery sweep (workflows/sharing/workflow.ts)
 * all queue the same message id, which the mail port queues once. Here, with the read side,
 * because the shares projection records each invitation's message id; the write side
 * (src/features/sharing/notifications.ts) imports them through index.ts.
 */

/** A UUID (v8 layout) determined by its parts: stable ids for mail, so a retry queues the same message. */
function stableId(...parts: string[]): string {
  const h = crypto.createHash('sha256').update(parts.join('\n')).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-8${h.slice(13, 16)}-${((parseInt(h.slice(16, 17), 16) & 0x3) | 0x8).toString(16)}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/** The invitation of one address (its nonce changes when it is revoked and invited again). */
export const invitationMailId = (verificationId: string, invitationNonce: string): string =>
  stableId('photoverify-share-invitation', verificationId, invitationNonce);

/** The notice to an invited address of the share's `accessChanges`-th change of access type. */
export const accessChangedMailId = (verificationId: string, shareNonce: string, accessChanges: number, email: string): string =>
  stableId('photoverify-share-access-changed', verificationId, shareNonce, String(accessChanges), email);
