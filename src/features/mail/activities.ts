import type { BlobStore } from '../../core/blob-store.js';
import { streamCorrelations, systemContext } from '../../core/es/commands.js';
import { foldStream, runCommand, type CommandContext } from '../../core/es/decider.js';
import type { Config } from '../../core/config.js';
import type { EventStore } from '../../core/es/event-store.js';
import { MailSendError, type Mailer } from '../../core/mail.js';
import type { RetryPolicy } from '../../../workflows/definition.js';
import type { ActivityContext, ActivityImplementations } from '../../core/es/workflow.js';
import type { Logger } from 'pino';
import { contentKey, parseContent, type MailContent } from './content.js';
import { mailDecider, mailStream, type AttemptFailure, type MailCommand, type MailMessageState } from './decider.js';
import { publicSendError, publicSendResponse } from './public-text.js';
import type { DeliveryStep, MailDeliveryActivities } from '../../../workflows/mail/workflow.js';
import type { SweepSource } from '../../core/es/workflow.js';
import { unfinishedMailIds } from '../../../projections/mail/index.js';

export interface MailActivityDeps {
  store: EventStore;
  /** Where the bodies wait until delivery ends. */
  blobs: BlobStore;
  mailer: Mailer;
  log: Logger;
  now: () => Date;
  config: Pick<Config, 'PROCESSING_REGION'>;
  /** Between attempts, and how many in all. */
  policy: RetryPolicy;
}

/** SMTP_URL's back-off: MAIL_RETRY_INITIAL_MS doubling up to an hour, MAIL_DELIVERY_ATTEMPTS in all (D-029). */
export function mailRetryPolicy(config: Pick<Config, 'MAIL_RETRY_INITIAL_MS' | 'MAIL_DELIVERY_ATTEMPTS'>): RetryPolicy {
  return { initialIntervalMs: config.MAIL_RETRY_INITIAL_MS, backoffCoefficient: 2, maximumIntervalMs: 60 * 60_000, maximumAttempts: config.MAIL_DELIVERY_ATTEMPTS };
}

/** Recording the outcome of a send that happened must outlast a short database outage: a lost MailSent means a resend. */
const RECORD_OUTCOME_ATTEMPTS = 8;

export function createMailActivities(deps: MailActivityDeps): ActivityImplementations<MailDeliveryActivities> {
  // Delivery acts for the request that queued the mail: its outcomes carry that request's correlation id.
  const correlationOf = streamCorrelations(deps.store);
  const context = async (state: MailMessageState): Promise<CommandContext> =>
    systemContext(deps, { actor: { type: 'system', id: 'mail-delivery' }, correlationId: await correlationOf(mailStream(state.mailId), state.mailId), accountId: state.accountId });

  const run = async (state: MailMessageState, command: MailCommand) => {
    const outcome = await runCommand(deps.store, mailStream(state.mailId), mailDecider, command, await context(state));
    return outcome.events;
  };

  /** The outcome of a send, recorded with patience: failing here leaves the attempt open (a resend after restart). */
  const recordOutcome = async (state: MailMessageState, command: MailCommand) => {
    for (let attempt = 1; ; attempt++) {
      try {
        return await run(state, command);
      } catch (error) {
        if (attempt >= RECORD_OUTCOME_ATTEMPTS) throw error;
        deps.log.warn({ err: error, mail: state.mailId, attempt }, 'could not record the outcome of a mail delivery attempt; trying again');
        await new Promise((resolve) => setTimeout(resolve, Math.min(250 * 2 ** (attempt - 1), 10_000)));
      }
    }
  };

  /** The bodies, or null when they are gone or altered. */
  const content = async (state: MailMessageState): Promise<MailContent | null> => {
    const bytes = await deps.blobs.read(contentKey(state.mailId, state.contentSha256)).catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return null;
      throw error; // the store itself failing: retried
    });
    return bytes && parseContent(bytes, state.contentSha256);
  };

  /** Delivery has ended (sent or failed): the bodies and their links are kept no longer. */
  const forget = (state: MailMessageState) => deps.blobs.delete(contentKey(state.mailId, state.contentSha256));

  return {
    async deliver(activity: ActivityContext, id: string): Promise<DeliveryStep> {
      const { state } = await foldStream(deps.store, mailStream(id), mailDecider);
      if (state.status === 'none') {
        deps.log.error({ mail: id }, 'mail delivery started for a message never queued');
        return { outcome: 'missing' };
      }
      if (state.status !== 'pending') {
        await forget(state); // again, in case the process stopped between the outcome and the deletion
        return { outcome: state.status };
      }
      const now = deps.now();
      if (state.retryAt && now < state.retryAt) return { outcome: 'retry', retryAt: state.retryAt.getTime() };
      const body = await content(state);
      if (!body) {
        deps.log.error({ mail: id }, 'the bodies of a queued message are missing or altered: recording it failed');
        await run(state, { type: 'RecordContentLost', now });
        await forget(state);
        return { outcome: 'failed' };
      }
      if (state.attemptOpen) {
        // The last attempt has no outcome: the process running it died (or it is still running
        // elsewhere, which the expected count below settles). Its message may or may not have
        // reached the server; sending again is the safe side for a notification (D-029).
        deps.log.warn({ mail: id, attempt: state.attempts }, 'mail delivery attempt was interrupted; sending again');
      }

      const started = await run(state, { type: 'StartAttempt', expected_attempts: state.attempts, transport: deps.mailer.kind, policy: deps.policy, now });
      const decided = started[0];
      if (!decided) return { outcome: 'retry', retryAt: now.getTime() + 1_000 }; // another worker moved it on: look again
      if (decided.type === 'MailDeliveryFailed') return { outcome: 'failed' };
      if (decided.type !== 'MailSendAttempted') throw new Error(`StartAttempt decided ${decided.type}`);
      const attempt = decided.data.attempt;

      let response: string;
      try {
        ({ response } = await deps.mailer.send(
          { messageId: state.messageId, from: state.from, to: state.to, subject: state.subject, text: body.text, html: body.html, date: state.queuedAt },
          { signal: activity.signal },
        ));
      } catch (error) {
        // Cancelled from outside (timeout, shutdown): its outcome is unknown, the attempt stays open.
        if (activity.signal.aborted) throw error;
        const failure = asFailure(error);
        // The transport's own words (hosts, addresses, paths) are for the operator; the event keeps the outcome (public-text.ts).
        deps.log.warn({ mail: id, attempt, error: (error as Error)?.message ?? String(error), permanent: failure.permanent }, 'mail delivery attempt failed');
        const recorded = await recordOutcome(state, { type: 'RecordAttemptFailed', attempt, failure, policy: deps.policy, now: deps.now() });
        const event = recorded[0];
        if (event?.type === 'MailAttemptFailed') return { outcome: 'retry', retryAt: Date.parse(event.data.retry_at) };
        if (event?.type === 'MailDeliveryFailed') await forget(state);
        return { outcome: 'failed' };
      }
      deps.log.info({ mail: id, attempt, response }, 'mail delivered to the transport');
      await recordOutcome(state, { type: 'RecordSent', attempt, transport: deps.mailer.kind, response: publicSendResponse(deps.mailer.kind, response), now: deps.now() });
      await forget(state);
      return { outcome: 'sent' };
    },
  };
}

/** The failure as the events record it: its outcome, not the transport's text (public-text.ts). */
function asFailure(error: unknown): AttemptFailure {
  if (error instanceof MailSendError) return { error: publicSendError(error.message), smtp_code: error.details.responseCode, permanent: error.permanent };
  return { error: publicSendError((error as Error)?.message ?? String(error)), smtp_code: null, permanent: false };
}

/** The delivery runs owed: messages neither sent nor failed (a crash between MailQueued and `start`, runs that failed). */
export async function mailDeliverySweep({ knex }: SweepSource) {
  return (await unfinishedMailIds(knex)).map((id) => ({ id, input: {} }));
}
