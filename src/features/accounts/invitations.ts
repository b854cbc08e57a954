import crypto from 'node:crypto';
import { dataDirSecret } from '../../core/secrets.js';
import { escapeHtml } from '../../core/text/html.js';
import { mailButton, mailDocument, mailSmallPrint } from '../mail/index.js';

/**
 * Invitation links (D-039, D-100). The token is 256 bits, an HMAC of the invited user's id
 * under a key kept in DATA_DIR/secrets/invitation-link-key, mailed and never stored: events and
 * read model keep its SHA-256 (a fast hash suits a secret of this strength, as for API keys).
 * Being derived, the token can be derived again by the invitation mail sweep (a crash between
 * the invitation and its message); without the key nothing recorded turns into one. The link
 * carries it in the fragment (`#`), which browsers never send to the server, so it stays out of
 * access logs and Referer headers; the page's script posts it.
 */
export const INVITATION_TTL_MS = 7 * 24 * 3_600_000;
export const SET_PASSWORD_PATH = '/accounts/set-password';
export const INVITATION_TOKEN_PATTERN = /^pvi_[A-Za-z0-9_-]{43}$/;

/** The invitation link key of a data directory, generated on first use (0600) and kept across restarts. */
export const invitationKey = (dataDir: string): Uint8Array => dataDirSecret(dataDir, 'invitation-link-key');

/** The token of a user's invitation (one per user id: inviting again makes a new user). */
export const invitationToken = (key: Uint8Array, userId: string): string =>
  `pvi_${crypto.createHmac('sha256', key).update(`photoverify-member-invitation\n${userId}`).digest('base64url')}`;
export const invitationSha256 = (token: string): string => crypto.createHash('sha256').update(token).digest('hex');
export const invitationLink = (publicBaseUrl: string, token: string): string => `${publicBaseUrl}${SET_PASSWORD_PATH}#${token}`;

export interface InvitationMailFacts {
  serviceName: string;
  inviterName: string;
  accountName: string;
  inviteeName: string;
  role: 'admin' | 'member';
  link: string;
  expiresAt: Date;
}


/** The invitation e-mail, as plain text and HTML. Pure: the use case gathers the facts and queues it. */
export function invitationMail(f: InvitationMailFacts): { subject: string; text: string; html: string } {
  const subject = `${f.inviterName} invited you to ${f.accountName} on ${f.serviceName}`;
  const lead = `${f.inviterName} added you (${f.inviteeName}) to the ${f.serviceName} account "${f.accountName}" as ${f.role === 'admin' ? 'an admin' : 'a member'}.`;
  const until = `The link works once, until ${f.expiresAt.toISOString().slice(0, 16).replace('T', ' ')} UTC. Then log in with your e-mail address and the new password.`;
  const note = 'This link is personal: whoever opens it sets the password of your user. Please do not forward it.';
  const text = [lead, '', `Choose your password: ${f.link}`, '', until, '', note, '', f.serviceName].join('\n');
  const html = mailDocument(subject, [
    `<p>${escapeHtml(lead)}</p>`,
    mailButton(f.link, 'Choose your password'),
    mailSmallPrint(`Or copy this address: ${f.link}`),
    `<p>${escapeHtml(until)}</p>`,
    mailSmallPrint(note),
    mailSmallPrint(f.serviceName),
  ]);
  return { subject, text, html };
}
