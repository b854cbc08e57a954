import crypto from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { createTransport } from 'nodemailer';
import { MailSendError, type Mailer, type MailMessage, type MailReceipt } from '../../core/mail.js';

/**
 * The embedded default: every message rendered as RFC 5322 (nodemailer's stream transport, CRLF
 * line ends) into `<dir>/<Message-ID>.eml`. Written to a temporary file and renamed, so a reader
 * never sees half a message; named by Message-ID, so a repeated attempt overwrites its own file
 * instead of adding a second one.
 */
export class OutboxMailer implements Mailer {
  readonly kind = 'outbox' as const;
  private readonly render = createTransport({ streamTransport: true, buffer: true, newline: 'windows' });

  constructor(readonly dir: string) {}

  /** The file a message is written to. */
  fileFor(messageId: string): string {
    return path.join(this.dir, outboxFileName(messageId));
  }

  async send(message: MailMessage, options: { signal?: AbortSignal } = {}): Promise<MailReceipt> {
    const file = this.fileFor(message.messageId);
    const temporary = path.join(this.dir, `.${path.basename(file)}.${crypto.randomBytes(6).toString('hex')}.tmp`);
    try {
      options.signal?.throwIfAborted();
      const info = await this.render.sendMail(message);
      await fs.mkdir(this.dir, { recursive: true });
      const handle = await fs.open(temporary, 'w', 0o600);
      try {
        await handle.writeFile(info.message as Buffer);
        await handle.sync();
      } finally {
        await handle.close();
      }
      options.signal?.throwIfAborted();
      await fs.rename(temporary, file);
      // The file's name only: the response is recorded in the account's audit history, the server's directories are not its business.
      return { response: `written to the outbox as ${path.basename(file)}` };
    } catch (error) {
      await fs.rm(temporary, { force: true }).catch(() => undefined);
      throw new MailSendError(`outbox: ${(error as Error).message}`, { permanent: false, responseCode: null, command: null, cause: error });
    }
  }

  async close(): Promise<void> {
    this.render.close();
  }
}

/** `<abc@example.eu>` → `abc@example.eu.eml`; anything outside a safe file-name alphabet becomes `_`. */
export function outboxFileName(messageId: string): string {
  return `${messageId.replace(/^<|>$/g, '').replace(/[^A-Za-z0-9@._-]/g, '_')}.eml`;
}
