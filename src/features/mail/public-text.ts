import type { MailTransport } from './events.js';

/**
 * What a mail event may say of a send, for the account's audit history (D-089): the outcome in
 * words the account can act on, and nothing of the server side behind it. Transports answer with
 * text meant for a mail administrator: SMTP replies carry host names, internal ids and queue ids
 * (`250 2.6.0 <…> [InternalId=…, Hostname=EX01.corp.internal] Queued mail for delivery`), socket
 * errors carry addresses (`connect ECONNREFUSED 10.0.0.5:25`), file-system errors carry paths.
 * The full text goes to the operator's log; the event keeps the SMTP reply code, the enhanced
 * status code (RFC 3463) and the error code, which say what happened without saying where.
 *
 * Every function here is idempotent (its output read again gives itself), so the audit view can
 * apply it to events recorded before it existed as well as to new ones.
 */

/** RFC 3463 subjects (the middle digit of an enhanced status code). */
const SUBJECTS: Record<string, string> = {
  '1': 'the recipient or sender address',
  '2': "the recipient's mailbox",
  '3': "the receiving mail system",
  '4': 'network or routing',
  '5': 'the mail protocol',
  '6': 'the message content',
  '7': 'security or policy',
};

/** nodemailer's error codes, in words (anything else: "the send failed"). */
const SEND_ERRORS: Record<string, string> = {
  ECONNECTION: 'could not connect to the mail server',
  ETIMEDOUT: 'the mail server did not answer in time',
  EDNS: "the mail server's name could not be resolved",
  ESOCKET: 'the connection to the mail server failed',
  ETLS: 'the secure connection to the mail server failed',
  EAUTH: "the mail server refused the service's credentials",
  EENVELOPE: 'the mail server refused the envelope',
  EMESSAGE: 'the mail server refused the message',
  EPROTOCOL: 'the mail server answered outside the protocol',
  ESTREAM: 'the message could not be streamed to the mail server',
};

const REPLY = /(?:^|\s)([245]\d\d)(?:[ -]+([245]\.\d{1,3}\.\d{1,3}))?(?=\s|$|:)/;
const ERROR_CODE = /^([A-Z][A-Z0-9_]{1,30}):\s*/;
const ERRNO = /\b(E[A-Z]{2,20})\b/;

/** An SMTP reply as `250 2.0.0 accepted`: code, enhanced status, meaning; null when the text holds none. */
function replySummary(text: string): string | null {
  const match = REPLY.exec(text);
  if (!match) return null;
  const [, code, enhanced] = match as unknown as [string, string, string | undefined];
  const meaning = code.startsWith('2')
    ? 'accepted'
    : `${code.startsWith('5') ? 'refused for good' : 'refused for now'}${enhanced ? `: a problem with ${SUBJECTS[enhanced.split('.')[1]!] ?? 'the message'}` : ''}`;
  return [code, enhanced, meaning].filter(Boolean).join(' ');
}

/** MailSent.response: the SMTP reply summarised, or the outbox file's name (never its directory). */
export function publicSendResponse(transport: MailTransport, response: string): string {
  if (transport === 'outbox') {
    const file = /([^/\\\s]+\.eml)\s*$/.exec(response)?.[1];
    return file ? `written to the outbox as ${file}` : 'written to the outbox';
  }
  return replySummary(response) ?? 'accepted';
}

/**
 * MailAttemptFailed.error and MailDeliveryFailed.error: `<code>: <what happened>`, from the
 * adapters' `<nodemailer code>: <reply or message>` and `outbox: <fs error>` (adapters/mail).
 */
export function publicSendError(error: string): string {
  // The decider's own words for an attempt cut short (decider.ts), around the last error it saw.
  const interrupted = /^(attempt \d+ was interrupted before its outcome was recorded; no attempts left)(?: \(last error: (.*)\))?$/s.exec(error);
  if (interrupted) return interrupted[2] === undefined ? interrupted[1]! : `${interrupted[1]} (last error: ${publicSendError(interrupted[2])})`;
  if (error.startsWith('outbox:')) {
    const errno = ERRNO.exec(error.slice('outbox:'.length))?.[1];
    return `outbox: the message could not be written${errno ? ` (${errno})` : ''}`;
  }
  const code = ERROR_CODE.exec(error)?.[1];
  const rest = code ? error.slice(ERROR_CODE.exec(error)![0].length) : error;
  const reply = replySummary(rest);
  const said = reply ?? (code && SEND_ERRORS[code]) ?? 'the send failed';
  return code ? `${code}: ${said}` : said;
}

/** A stored mail event's data as the audit history shows it; other events pass unchanged. */
export function publicMailEventData(type: string, data: Record<string, unknown>): Record<string, unknown> {
  if (type === 'MailSent' && typeof data.response === 'string' && (data.transport === 'smtp' || data.transport === 'outbox')) {
    return { ...data, response: publicSendResponse(data.transport, data.response) };
  }
  if ((type === 'MailAttemptFailed' || type === 'MailDeliveryFailed') && typeof data.error === 'string' && data.reason !== 'content_lost') {
    return { ...data, error: publicSendError(data.error) };
  }
  return data;
}
