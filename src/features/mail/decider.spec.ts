import { describe, it } from 'vitest';
import { given } from '../../../test/support/decider-spec.js';
import type { RetryPolicy } from '../../../workflows/definition.js';
import { mailDecider, type AttemptFailure, type MailCommand } from './decider.js';
import type { MailEvent } from './events.js';

const MAIL = 'share-invite-0001';
const ACCOUNT = '0a000000-0000-4000-8000-000000000001';
const SHA = 'a'.repeat(64);
const QUEUED_AT = new Date('2026-03-01T12:00:00.000Z');
const at = (seconds: number) => new Date(QUEUED_AT.getTime() + seconds * 1000);
const policy: RetryPolicy = { initialIntervalMs: 30_000, backoffCoefficient: 2, maximumIntervalMs: 3_600_000, maximumAttempts: 3 };

/** What the command names and the event records unchanged. */
const mail = {
  mail_id: MAIL,
  message_id: `<${MAIL}@photoverify.local>`,
  account_id: ACCOUNT,
  from: 'PhotoVerify <no-reply@photoverify.local>',
  to: 'judge@example.eu',
  subject: 'A verification was shared with you',
  content_sha256: SHA,
};
const queue: MailCommand = { type: 'QueueMail', ...mail, now: QUEUED_AT };
const queued: MailEvent = { type: 'MailQueued', data: { ...mail, queued_at: QUEUED_AT.toISOString() } };
const attempted = (attempt: number, when: Date): MailEvent => ({ type: 'MailSendAttempted', data: { mail_id: MAIL, attempt, transport: 'smtp', attempted_at: when.toISOString() } });
const sent = (attempt: number, when: Date): MailEvent => ({ type: 'MailSent', data: { mail_id: MAIL, attempt, transport: 'smtp', response: '250 OK', sent_at: when.toISOString() } });
const attemptFailed = (attempt: number, when: Date, retryAt: Date): MailEvent => ({
  type: 'MailAttemptFailed',
  data: { mail_id: MAIL, attempt, error: 'ECONNECTION: connect ECONNREFUSED', smtp_code: null, failed_at: when.toISOString(), retry_at: retryAt.toISOString() },
});

const start = (expected: number, now: Date): MailCommand => ({ type: 'StartAttempt', expected_attempts: expected, transport: 'smtp', policy, now });
const recordSent = (attempt: number, now: Date): MailCommand => ({ type: 'RecordSent', attempt, transport: 'smtp', response: '250 OK', now });
const transient: AttemptFailure = { error: 'ECONNECTION: connect ECONNREFUSED', smtp_code: null, permanent: false };
const rejected: AttemptFailure = { error: 'EENVELOPE: 550 5.1.1 no such user', smtp_code: 550, permanent: true };
const recordFailed = (attempt: number, now: Date, failure = transient): MailCommand => ({ type: 'RecordAttemptFailed', attempt, failure, policy, now });

describe('mailDecider', () => {
  describe('given no message', () => {
    it('QueueMail records it queued, with its Message-ID and account', () => {
      given(mailDecider, []).when(queue).then([queued]);
    });

    it('StartAttempt, RecordSent and RecordAttemptFailed decide nothing', () => {
      given(mailDecider, []).when(start(0, at(1))).thenNothing();
      given(mailDecider, []).when(recordSent(1, at(1))).thenNothing();
      given(mailDecider, []).when(recordFailed(1, at(1))).thenNothing();
    });
  });

  describe('given a queued message', () => {
    it('QueueMail with the same id decides nothing (one message per id), even with other content', () => {
      given(mailDecider, [queued]).when({ ...queue, subject: 'Another subject', content_sha256: 'b'.repeat(64), now: at(5) } as MailCommand).thenNothing();
    });

    it('StartAttempt records attempt 1 before the message is handed over', () => {
      given(mailDecider, [queued]).when(start(0, at(1))).then([attempted(1, at(1))]);
    });

    it('StartAttempt expecting another attempt count decides nothing (another worker started one)', () => {
      given(mailDecider, [queued]).when(start(1, at(1))).thenNothing();
    });

    it('RecordContentLost fails the message: nothing can be sent', () => {
      given(mailDecider, [queued])
        .when({ type: 'RecordContentLost', now: at(1) })
        .then([
          {
            type: 'MailDeliveryFailed',
            data: { mail_id: MAIL, attempts: 0, reason: 'content_lost', error: 'the stored message bodies are missing or do not match content_sha256', smtp_code: null, failed_at: at(1).toISOString() },
          },
        ]);
    });

    it('RecordSent without an attempt decides nothing', () => {
      given(mailDecider, [queued]).when(recordSent(1, at(1))).thenNothing();
    });
  });

  describe('given an attempt in progress (or interrupted by a crash)', () => {
    const history = [queued, attempted(1, at(1))];

    it('RecordSent for that attempt records the message sent', () => {
      given(mailDecider, history).when(recordSent(1, at(2))).then([sent(1, at(2))]);
    });

    it('RecordSent for another attempt decides nothing', () => {
      given(mailDecider, history).when(recordSent(2, at(2))).thenNothing();
    });

    it('RecordAttemptFailed with a transient error schedules the next attempt after the initial interval', () => {
      given(mailDecider, history).when(recordFailed(1, at(2))).then([attemptFailed(1, at(2), at(32))]);
    });

    it('RecordAttemptFailed with a permanent refusal fails the message at once', () => {
      given(mailDecider, history)
        .when(recordFailed(1, at(2), rejected))
        .then([{ type: 'MailDeliveryFailed', data: { mail_id: MAIL, attempts: 1, reason: 'rejected', error: rejected.error, smtp_code: 550, failed_at: at(2).toISOString() } }]);
    });

    it('StartAttempt after a restart records the next attempt (the interrupted one counts)', () => {
      given(mailDecider, history).when(start(1, at(60))).then([attempted(2, at(60))]);
    });
  });

  describe('given a failed attempt waiting for its retry', () => {
    const history = [queued, attempted(1, at(1)), attemptFailed(1, at(2), at(32)), attempted(2, at(32))];

    it('the delay doubles: attempt 2 failing schedules attempt 3 one minute later', () => {
      given(mailDecider, history).when(recordFailed(2, at(33))).then([attemptFailed(2, at(33), at(93))]);
    });

    it('StartAttempt before retry_at decides nothing', () => {
      given(mailDecider, [queued, attempted(1, at(1)), attemptFailed(1, at(2), at(32))]).when(start(1, at(31))).thenNothing();
    });

    it('StartAttempt at retry_at records the next attempt', () => {
      given(mailDecider, [queued, attempted(1, at(1)), attemptFailed(1, at(2), at(32))]).when(start(1, at(32))).then([attempted(2, at(32))]);
    });
  });

  describe('given the last allowed attempt in progress', () => {
    const history = [queued, attempted(1, at(1)), attemptFailed(1, at(2), at(32)), attempted(2, at(32)), attemptFailed(2, at(33), at(93)), attempted(3, at(93))];

    it('RecordAttemptFailed fails the message: attempts exhausted, with the last error', () => {
      given(mailDecider, history)
        .when(recordFailed(3, at(94)))
        .then([{ type: 'MailDeliveryFailed', data: { mail_id: MAIL, attempts: 3, reason: 'attempts_exhausted', error: transient.error, smtp_code: null, failed_at: at(94).toISOString() } }]);
    });

    it('StartAttempt after it was interrupted fails the message rather than exceed the attempts', () => {
      given(mailDecider, history).when(start(3, at(200))).then([
        {
          type: 'MailDeliveryFailed',
          data: {
            mail_id: MAIL,
            attempts: 3,
            reason: 'attempts_exhausted',
            error: `attempt 3 was interrupted before its outcome was recorded; no attempts left (last error: ${transient.error})`,
            smtp_code: null,
            failed_at: at(200).toISOString(),
          },
        },
      ]);
    });
  });

  describe('given a sent message', () => {
    const history = [queued, attempted(1, at(1)), sent(1, at(2))];

    it('every command decides nothing (delivered once)', () => {
      given(mailDecider, history).when(queue).thenNothing();
      given(mailDecider, history).when(start(1, at(10))).thenNothing();
      given(mailDecider, history).when(recordSent(1, at(10))).thenNothing();
      given(mailDecider, history).when(recordFailed(1, at(10))).thenNothing();
      given(mailDecider, history).when({ type: 'RecordContentLost', now: at(10) }).thenNothing();
    });
  });

  describe('given a failed message', () => {
    const history = [queued, attempted(1, at(1)), { type: 'MailDeliveryFailed', data: { mail_id: MAIL, attempts: 1, reason: 'rejected', error: 'x', smtp_code: 550, failed_at: at(2).toISOString() } } as MailEvent];

    it('StartAttempt decides nothing: a failed message is not retried', () => {
      given(mailDecider, history).when(start(1, at(10))).thenNothing();
    });
  });
});
