/**
 * The Mailer port: hands one rendered message to a transport. Two adapters
 * (src/adapters/mail/): SMTP through nodemailer when `SMTP_URL` is set, otherwise a file outbox
 * under `DATA_DIR/outbox` (one `.eml` per message, named by its Message-ID).
 *
 * A send is one attempt, never retried here: retries, back-off and the record of every attempt
 * belong to the caller (the mail delivery workflow, the one sender: workflows/ and its module).
 */

export interface MailMessage {
  /** `<local@domain>`: the same on every attempt, so a receiver (or the outbox) can tell a repeat. */
  messageId: string;
  from: string;
  to: string;
  subject: string;
  text: string;
  html: string;
  /** The Date header: when the message was queued, so every attempt renders the same date. */
  date: Date;
}

export interface MailReceipt {
  /** What the transport answered: the SMTP server's final reply, or the outbox file written. */
  response: string;
}

export type MailerKind = 'smtp' | 'outbox';

export interface Mailer {
  readonly kind: MailerKind;
  /**
   * One delivery attempt. Resolves once the transport has taken the message (SMTP: the server's
   * 250 to the end of DATA; outbox: the file renamed into place). Rejects with `MailSendError`.
   * An aborted `signal` closes the connection (SMTP) before the end of DATA if it can.
   */
  send(message: MailMessage, options?: { signal?: AbortSignal }): Promise<MailReceipt>;
  /** Releases connections and handles; no send after it. */
  close(): Promise<void>;
}

/**
 * A failed attempt. `permanent`: the server refused this message or recipient for good (an SMTP
 * 5xx reply to RCPT TO or DATA): retrying cannot change it. Everything else (connection refused,
 * timeouts, 4xx replies, a full disk) may pass and is retried.
 */
export class MailSendError extends Error {
  override readonly name = 'MailSendError';
  constructor(
    message: string,
    readonly details: { permanent: boolean; responseCode: number | null; command: string | null; cause?: unknown },
  ) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
  }
  get permanent(): boolean {
    return this.details.permanent;
  }
}

/** Ids that may name a message: they become `<id@domain>` and the stream `mail-<id>`. */
export const MAIL_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,199}$/;

/**
 * The Message-ID of mail `id` sent from `from` (`Name <user@domain>` or `user@domain`): the
 * sender's domain on the right, as RFC 5322 suggests, `photoverify.local` when it has none.
 */
export function messageIdFor(id: string, from: string): string {
  if (!MAIL_ID_PATTERN.test(id)) throw new Error(`mail id ${JSON.stringify(id)} is not usable in a Message-ID`);
  const address = /<([^>]*)>/.exec(from)?.[1] ?? from;
  const domain = /@([A-Za-z0-9.-]+)\s*$/.exec(address.trim())?.[1] ?? 'photoverify.local';
  return `<${id}@${domain}>`;
}
