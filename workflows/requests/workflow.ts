/**
 * THE verification request expiry workflow, run by both engines (workflows/definition.ts): one
 * run per deadline of a request (id: `<request_id>:<expires_at epoch ms>`, so a PATCH moving
 * `expires_at` starts a run of its own and the old one, waking at the old deadline, finds it
 * superseded). It sleeps on a durable timer until the deadline and records RequestExpired
 * (visible in the audit history). The status a reader sees is derived from `expires_at` anyway
 * (spec 3.3); the event is the durable fact that the deadline passed while the request was open.
 * Deterministic code only: Temporal's workflow bundle includes this module.
 */
import type { ActivityOptions, WorkflowDefinition } from '../definition.js';

export const REQUEST_EXPIRY_WORKFLOW_TYPE = 'requestExpiry';

/** The run of one deadline of one request. */
export const expiryRunId = (requestId: string, expiresAt: string) => `${requestId}:${new Date(expiresAt).getTime()}`;

/**
 * `expired`: RequestExpired recorded (now or before) for this deadline; `superseded`: the deadline
 * moved, or the request is closed or deleted: nothing to record; `not_due`: too early by the
 * activity's clock, call again at `dueAt` (epoch ms).
 */
export type RequestExpiryStep = { outcome: 'expired' | 'superseded' } | { outcome: 'not_due'; dueAt: number };

export interface RequestExpiryActivities {
  /** Idempotent: records RequestExpired at most once per deadline, only while the request is open with that deadline. */
  expireRequest(requestId: string, expiresAt: string): Promise<RequestExpiryStep>;
}

export interface RequestExpiryInput {
  request_id: string;
  /** The deadline this run waits for (ISO 8601), as the request's events recorded it. */
  expires_at: string;
}

export type RequestExpiryOutcome = 'expired' | 'superseded';

/** Database hiccups are retried; after the last attempt the run fails and the sweep starts it again. */
const expire: ActivityOptions = {
  startToCloseTimeoutMs: 60_000,
  retry: { initialIntervalMs: 1_000, backoffCoefficient: 2, maximumIntervalMs: 60_000, maximumAttempts: 10 },
};

/** Never wait less than this between two calls (the activity's clock may run behind the workflow's). */
const MIN_WAIT_MS = 1_000;

export const requestExpiryWorkflow: WorkflowDefinition<RequestExpiryInput, RequestExpiryActivities, RequestExpiryOutcome> = {
  type: REQUEST_EXPIRY_WORKFLOW_TYPE,
  activities: { expireRequest: expire },

  async run(ctx, input) {
    // From the recorded deadline: a run resumed after a restart keeps the same wake time.
    await ctx.sleepUntil(new Date(input.expires_at));
    for (;;) {
      const step = await ctx.activities.expireRequest(input.request_id, input.expires_at);
      if (step.outcome !== 'not_due') return step.outcome;
      await ctx.sleepUntil(new Date(Math.max(step.dueAt, ctx.now().getTime() + MIN_WAIT_MS)));
    }
  },
};
