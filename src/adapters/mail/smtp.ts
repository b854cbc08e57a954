import { createTransport, type SMTPTransportOptions, type Transporter } from 'nodemailer';
import { MailSendError, type Mailer, type MailMessage, type MailReceipt } from '../../core/mail.js';

/** One send never takes longer (a server trickling its replies would pass every idle timeout). */
const SEND_LIMIT_MS = 4 * 60_000;

/** SMTP commands whose 5xx reply refuses this message or recipient for good. */
const PERMANENT_COMMANDS = new Set(['RCPT TO', 'DATA']);

/**
 * Sends through the SMTP server at `url` (smtp:// or smtps://, credentials in the URL), one
 * connection per message: no pool, so aborting a send closes exactly its own connection.
 * Timeouts are explicit (30 s connect and greeting, 60 s idle, 4 min for the whole send) and
 * shorter than the delivery activity's, so a hung server ends the attempt as a failure of ours,
 * not as an abandoned send still running in the background.
 */
export class SmtpMailer implements Mailer {
  readonly kind = 'smtp' as const;
  private readonly transport: Transporter;

  constructor(url: string) {
    const parsed = new URL(url);
    this.transport = createTransport({
      host: parsed.hostname,
      port: parsed.port ? Number(parsed.port) : parsed.protocol === 'smtps:' ? 465 : 25,
      secure: parsed.protocol === 'smtps:',
      auth: parsed.username ? { user: decodeURIComponent(parsed.username), pass: decodeURIComponent(parsed.password) } : undefined,
      connectionTimeout: 30_000,
      greetingTimeout: 30_000,
      socketTimeout: 60_000,
      ...Object.fromEntries(parsed.searchParams), // e.g. ?requireTLS=true, ?name=mail.example.eu
    } as SMTPTransportOptions);
  }

  async send(message: MailMessage, options: { signal?: AbortSignal } = {}): Promise<MailReceipt> {
    try {
      const limit = AbortSignal.timeout(SEND_LIMIT_MS);
      const signal = options.signal ? AbortSignal.any([options.signal, limit]) : limit;
      const info = await this.transport.sendMail({ ...message, signal });
      return { response: String((info as { response?: unknown }).response ?? '') };
    } catch (error) {
      throw smtpFailure(error);
    }
  }

  async close(): Promise<void> {
    this.transport.close();
  }
}

/** nodemailer's error as the port's: the server's reply and the command it answered, permanent or not. */
export function smtpFailure(error: unknown): MailSendError {
  const e = error as { message?: string; responseCode?: number; command?: string; code?: string; response?: string };
  const responseCode = typeof e.responseCode === 'number' ? e.responseCode : null;
  const command = typeof e.command === 'string' ? e.command : null;
  const permanent = responseCode !== null && responseCode >= 500 && responseCode < 600 && command !== null && PERMANENT_COMMANDS.has(command);
  const message = e.response ? `${e.code ?? 'SMTP'}: ${e.response}` : `${e.code ?? 'Error'}: ${e.message ?? String(error)}`;
  return new MailSendError(message, { permanent, responseCode, command, cause: error });
}
