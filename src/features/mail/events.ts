import { z } from 'zod';
import { defineEvent, type EventOf } from '../../core/es/events.js';

const transport = z.enum(['smtp', 'outbox']);
/** An SMTP reply code when the server gave one (connection failures and the outbox have none). */
const smtpCode = z.number().int().nullable();

/**
 * One stream per message, `mail-<id>`, owned by the account it is sent for (the audit history's
 * ownership check). The recipient and subject are recorded and shown there: the owner chose the
 * address and needs to see which one failed. The bodies are not events: they may carry links
 * that grant access, so they wait in the blob store until delivery ends (content.ts); the event
 * records their SHA-256.
 */
export const mailEvents = {
  MailQueued: defineEvent(
    'MailQueued',
    z.object({
      mail_id: z.string(),
      message_id: z.string(),
      account_id: z.uuid().nullable(),
      from: z.string(),
      to: z.string(),
      subject: z.string(),
      /** SHA-256 (hex) of the bodies' stored JSON (content.ts). */
      content_sha256: z.string().regex(/^[0-9a-f]{64}$/),
      queued_at: z.iso.datetime(),
    }),
  ),
  /** Recorded before the message is handed to the transport: an attempt without an outcome was interrupted. */
  MailSendAttempted: defineEvent('MailSendAttempted', z.object({ mail_id: z.string(), attempt: z.number().int().positive(), transport, attempted_at: z.iso.datetime() })),
  MailSent: defineEvent('MailSent', z.object({ mail_id: z.string(), attempt: z.number().int().positive(), transport, response: z.string(), sent_at: z.iso.datetime() })),
  /** An attempt failed and another follows at `retry_at`. */
  MailAttemptFailed: defineEvent(
    'MailAttemptFailed',
    z.object({ mail_id: z.string(), attempt: z.number().int().positive(), error: z.string(), smtp_code: smtpCode, failed_at: z.iso.datetime(), retry_at: z.iso.datetime() }),
  ),
  /**
   * The message will not be sent: the server refused it for good (`rejected`: an SMTP 5xx to
   * RCPT TO or DATA), every attempt failed (`attempts_exhausted`; `error` is the last one), or
   * its stored bodies are gone or altered (`content_lost`).
   */
  MailDeliveryFailed: defineEvent(
    'MailDeliveryFailed',
    z.object({
      mail_id: z.string(),
      attempts: z.number().int().nonnegative(),
      reason: z.enum(['rejected', 'attempts_exhausted', 'content_lost']),
      error: z.string(),
      smtp_code: smtpCode,
      failed_at: z.iso.datetime(),
    }),
  ),
} as const;

export type MailEvent = EventOf<typeof mailEvents>;
export type MailTransport = z.infer<typeof transport>;
