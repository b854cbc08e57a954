/**
 * THE verification request expiry workflow, run by both engines (workflows/definition.ts): one
 * run per deadline of a request (id: `<request_id>:<expires_at epoch ms>`, so a PATCH moving
 * `expires_at` starts a run of its own and the old one, waking at the old deadline, finds it
 * superseded). It sleeps on a durable timer until the deadline and records RequestExpired
 * (visible in the audit history). The status a reader sees is derived from `expires_at` anyway
 * (spec 3.3); the event is the durable fact that the deadline passed while the request was open.
 * Deterministic code only: Temporal's workflow bundle includes this module.
 */
import { type DueStep, recoveryStep, whenDue, type WorkflowDefinition } from '../definition.js';

export const REQUEST_EXPIRY_WORKFLOW_TYPE = 'requestExpiry';

/** The run of one deadline of one request. */
export const expiryRunId = (requestId: string, expiresAt: string) => `${requestId}:${new Date(expiresAt).getTime()}`;

/**
 * `expired`: RequestExpired recorded (now or before) for this deadline; `superseded`: the deadline
 * moved, or the request is closed or deleted: nothing to record; `not_due`: too early by the
 * activity's clock, call again at `dueAt` (epoch ms).
 */
export type RequestExpiryStep = DueStep<'expired' | 'superseded'>;

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

export const requestExpiryWorkflow: WorkflowDefinition<RequestExpiryInput, RequestExpiryActivities, RequestExpiryOutcome> = {
  type: REQUEST_EXPIRY_WORKFLOW_TYPE,
  activities: { expireRequest: recoveryStep() },

  // From the recorded deadline.
  run: (ctx, input) => whenDue(ctx, new Date(input.expires_at), () => ctx.activities.expireRequest(input.request_id, input.expires_at)),
};
