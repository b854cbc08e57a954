/**
 * The mail feature's public entry: what other features use (a feature reaches another
 * only through its index.ts or its events.ts). Each line is used by another feature.
 */
export { publicMailEventData } from './public-text.js';
export { queueOwedMail } from './owed-mail.js';
export { queuedMailIds } from '../../../projections/mail/index.js';
export { queueMail, recordMail, type OutgoingMail } from './use-cases.js';
export { mailButton, mailDocument, mailSmallPrint } from './html-mail.js';
