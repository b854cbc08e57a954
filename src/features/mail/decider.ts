import type { Decider } from '../../core/es/decider.js';
import { assertNever } from '../../core/es/events.js';
import { streamName } from '../../core/es/streams.js';
import { type RetryPolicy } from '../../../workflows/definition.js';
import { retryDelayMs } from '../../core/es/workflow.js';
import { mailEvents, type MailEvent, type MailTransport } from './events.js';

export const MAIL_STREAM_CATEGORY = 'mail';
export const mailStream = (mailId: string) => streamName(MAIL_STREAM_CATEGORY, mailId);

/** What a failed attempt reports (the transport's error, as the port's MailSendError says it). */
export interface AttemptFailure {
  error: string;
  smtp_code: number | null;
  /** The server refused this message for good: no further attempt. */
  permanent: boolean;
}

export type MailCommand =
  | {
      type: 'QueueMail';
      mail_id: string;
      message_id: string;
      account_id: string | null;
      from: string;
      to: string;
      subject: string;
      content_sha256: string;
      now: Date;
    }
  /**
   * Records the next attempt before the message is handed over. `expected_attempts` is the
   * count the caller read: if another worker started one meanwhile, nothing is decided.
   */
  | { type: 'StartAttempt'; expected_attempts: number; transport: MailTransport; policy: RetryPolicy; now: Date }
  | { type: 'RecordSent'; attempt: number; transport: MailTransport; response: string; now: Date }
  | { type: 'RecordAttemptFailed'; attempt: number; failure: AttemptFailure; policy: RetryPolicy; now: Date }
  /** The stored bodies are missing or do not match content_sha256: nothing can be sent. */
  | { type: 'RecordContentLost'; now: Date };

export interface MailMessageState {
  mailId: string;
  messageId: string;
  accountId: string | null;
  from: string;
  to: string;
  subject: string;
  contentSha256: string;
  queuedAt: Date;
  /** Attempts started (MailSendAttempted), interrupted ones included. */
  attempts: number;
  /** The last attempt started has no outcome yet: running, or interrupted by a crash. */
  attemptOpen: boolean;
  /** No attempt before this (set by MailAttemptFailed). */
  retryAt: Date | null;
  lastError: string | null;
  lastSmtpCode: number | null;
}

export type MailState = { status: 'none' } | ({ status: 'pending' | 'sent' | 'failed' } & MailMessageState);

export const mailDecider: Decider<MailState, MailCommand, typeof mailEvents> = {
  catalogue: mailEvents,
  initialState: () => ({ status: 'none' }),
  evolve(state, event) {
    switch (event.type) {
      case 'MailQueued': {
        const d = event.data;
        return {
          status: 'pending',
          mailId: d.mail_id,
          messageId: d.message_id,
          accountId: d.account_id,
          from: d.from,
          to: d.to,
          subject: d.subject,
          contentSha256: d.content_sha256,
          queuedAt: new Date(d.queued_at),
          attempts: 0,
          attemptOpen: false,
          retryAt: null,
          lastError: null,
          lastSmtpCode: null,
        };
      }
      case 'MailSendAttempted':
        return state.status === 'none' ? state : { ...state, attempts: event.data.attempt, attemptOpen: true };
      case 'MailSent':
        return state.status === 'none' ? state : { ...state, status: 'sent', attemptOpen: false };
      case 'MailAttemptFailed':
        return state.status === 'none'
          ? state
          : { ...state, attemptOpen: false, retryAt: new Date(event.data.retry_at), lastError: event.data.error, lastSmtpCode: event.data.smtp_code };
      case 'MailDeliveryFailed':
        return state.status === 'none' ? state : { ...state, status: 'failed', attemptOpen: false, lastError: event.data.error, lastSmtpCode: event.data.smtp_code };
      default:
        return assertNever(event);
    }
  },
  decide(command, state): MailEvent[] {
    switch (command.type) {
      case 'QueueMail': {
        // The id is the message's identity: queueing it again (a retried request) changes nothing.
        if (state.status !== 'none') return [];
        const { type: _type, now, ...data } = command;
        return [{ type: 'MailQueued', data: { ...data, queued_at: now.toISOString() } }];
      }
      case 'StartAttempt': {
        if (state.status !== 'pending' || state.attempts !== command.expected_attempts) return [];
        if (state.retryAt && command.now < state.retryAt) return [];
        if (state.attempts >= command.policy.maximumAttempts) {
          // Only reachable when the last allowed attempt was interrupted (a failed one records
          // MailDeliveryFailed itself): its outcome is unknown, and no attempt is left.
          return [
            {
              type: 'MailDeliveryFailed',
              data: {
                mail_id: state.mailId,
                attempts: state.attempts,
                reason: 'attempts_exhausted',
                error: `attempt ${state.attempts} was interrupted before its outcome was recorded; no attempts left${state.lastError ? ` (last error: ${state.lastError})` : ''}`,
                smtp_code: state.lastSmtpCode,
                failed_at: command.now.toISOString(),
              },
            },
          ];
        }
        return [{ type: 'MailSendAttempted', data: { mail_id: state.mailId, attempt: state.attempts + 1, transport: command.transport, attempted_at: command.now.toISOString() } }];
      }
      case 'RecordSent':
        if (state.status !== 'pending' || !state.attemptOpen || state.attempts !== command.attempt) return [];
        return [{ type: 'MailSent', data: { mail_id: state.mailId, attempt: command.attempt, transport: command.transport, response: command.response, sent_at: command.now.toISOString() } }];
      case 'RecordAttemptFailed': {
        if (state.status !== 'pending' || !state.attemptOpen || state.attempts !== command.attempt) return [];
        const { failure, attempt, now } = command;
        if (failure.permanent || attempt >= command.policy.maximumAttempts) {
          return [
            {
              type: 'MailDeliveryFailed',
              data: {
                mail_id: state.mailId,
                attempts: attempt,
                reason: failure.permanent ? 'rejected' : 'attempts_exhausted',
                error: failure.error,
                smtp_code: failure.smtp_code,
                failed_at: now.toISOString(),
              },
            },
          ];
        }
        const retryAt = new Date(now.getTime() + retryDelayMs(command.policy, attempt));
        return [
          {
            type: 'MailAttemptFailed',
            data: { mail_id: state.mailId, attempt, error: failure.error, smtp_code: failure.smtp_code, failed_at: now.toISOString(), retry_at: retryAt.toISOString() },
          },
        ];
      }
      case 'RecordContentLost':
        if (state.status !== 'pending') return [];
        return [
          {
            type: 'MailDeliveryFailed',
            data: {
              mail_id: state.mailId,
              attempts: state.attempts,
              reason: 'content_lost',
              error: 'the stored message bodies are missing or do not match content_sha256',
              smtp_code: null,
              failed_at: command.now.toISOString(),
            },
          },
        ];
      default:
        return assertNever(command);
    }
  },
};
