import crypto from 'node:crypto';
import { cleanName } from '../../core/text/text.js';

/**
 * A message's bodies live outside the event log, in the blob store, from queueing until the
 * message is sent or has failed, then are deleted: they carry links that grant access (share
 * URLs, personal invitation links), and the event log is permanent and copied into backups.
 * MailQueued records their SHA-256; the activity checks what it reads against it (D-030).
 */
export interface MailContent {
  text: string;
  html: string;
}

/**
 * A subject as recorded and sent: one line, without controls or bidi formatting characters.
 * Subjects carry names (users', accounts', files'); the doors refuse or clean those, and this
 * keeps names recorded before they did out of mail headers and the audit history too.
 */
export const subjectLine = (subject: string): string => cleanName(subject);

export function contentBytes(content: MailContent): Buffer {
  return Buffer.from(JSON.stringify({ text: content.text, html: content.html }), 'utf8');
}

export const sha256Hex = (bytes: Uint8Array | string): string => crypto.createHash('sha256').update(bytes).digest('hex');

/** `mail/<sha256(mail id)>/<sha256(content)>.json`: the blob store's lower-case key alphabet, one object per rendering. */
export const contentKey = (mailId: string, contentSha256: string): string => `mail/${sha256Hex(mailId)}/${contentSha256}.json`;

/** The stored bytes back as content, or null when they do not match the recorded hash. */
export function parseContent(bytes: Buffer, contentSha256: string): MailContent | null {
  if (sha256Hex(bytes) !== contentSha256) return null;
  const parsed = JSON.parse(bytes.toString('utf8')) as Partial<MailContent>;
  return typeof parsed.text === 'string' && typeof parsed.html === 'string' ? { text: parsed.text, html: parsed.html } : null;
}
