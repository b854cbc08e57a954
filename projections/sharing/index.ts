/**
 * The sharing read side's public entry for the write side: the notification ids the shares
 * projection records (mail-ids.ts). The projector is paired with the feature by the composition
 * root (src/modules.ts), never imported from here.
 */
export { accessChangedMailId, invitationMailId } from './mail-ids.js';
export * from './queries.js';
