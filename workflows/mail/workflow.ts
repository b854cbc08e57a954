/**
 * THE mail delivery workflow, run by both engines (workflows/definition.ts). Deterministic code
 * only: Temporal's workflow bundle includes this module (types and the port's pure helpers).
 *
 * The back-off between attempts is not the activity's retry policy but durable timers here,
 * with the schedule recorded in the message's stream (MailAttemptFailed.retry_at): a waiting
 * message holds no execution slot (the in-process engine keeps a slot through activity
 * retries), its attempt count and next attempt survive a restart on either engine, and every
 * attempt is an event in the audit history (D-029).
 */
import type { ActivityOptions, WorkflowDefinition } from '../definition.js';

export const MAIL_DELIVERY_WORKFLOW_TYPE = 'mailDelivery';

/** What one call of `deliver` did. `retry`: not sent yet; call again at `retryAt` (epoch ms). */
export type DeliveryStep = { outcome: 'sent' | 'failed' | 'missing' } | { outcome: 'retry'; retryAt: number };

export interface MailDeliveryActivities {
  /**
   * One delivery attempt if one is due: re-reads the stream and does nothing for a message
   * already sent or failed; records MailSendAttempted, hands the message over, records the outcome.
   */
  deliver(id: string): Promise<DeliveryStep>;
}

export type MailDeliveryInput = Record<string, never>;
export type MailDeliveryOutcome = 'sent' | 'failed' | 'missing';

/**
 * Only infrastructure failures (the event store unreachable) are retried here, briefly; a
 * failed send is an outcome the activity records, not a thrown error. When even these retries
 * run out, the run fails and the engines' sweep (unfinished messages) starts it again.
 * The timeout is longer than the SMTP adapter's own bound on one send (4 min). The heartbeat
 * timeout lets Temporal notice a dead worker within a minute and deliver cancellation to the
 * attempt (which closes its SMTP connection), so no abandoned send runs beside its retry.
 */
const deliver: ActivityOptions = {
  startToCloseTimeoutMs: 5 * 60_000,
  heartbeatTimeoutMs: 60_000,
  retry: { initialIntervalMs: 1_000, backoffCoefficient: 2, maximumIntervalMs: 30_000, maximumAttempts: 5 },
};

/** Never wait less than this between two calls (the activity's clock may run ahead of the workflow's). */
const MIN_WAIT_MS = 250;

export const mailDeliveryWorkflow: WorkflowDefinition<MailDeliveryInput, MailDeliveryActivities, MailDeliveryOutcome> = {
  type: MAIL_DELIVERY_WORKFLOW_TYPE,
  activities: { deliver },

  async run(ctx) {
    for (;;) {
      const step = await ctx.activities.deliver(ctx.id);
      if (step.outcome !== 'retry') return step.outcome;
      await ctx.sleepUntil(new Date(Math.max(step.retryAt, ctx.now().getTime() + MIN_WAIT_MS)));
    }
  },
};
