/**
 * THE upload expiry workflow, run by both engines (workflows/definition.ts): one run per received
 * upload (id: the upload's nonce), started when its file arrives. It waits until the upload id
 * has expired and the grace after it has passed (policy.ts), then deletes the file unless a
 * verification used it, recording UploadExpired. Deterministic code only: Temporal's workflow
 * bundle includes this module (types and pure helpers).
 */
import type { ActivityOptions, WorkflowDefinition } from '../definition.js';
import { uploadDeletableAt } from './policy.js';

export const UPLOAD_EXPIRY_WORKFLOW_TYPE = 'uploadExpiry';

/**
 * `expired`: UploadExpired recorded (now or before) and the file deleted; `used`: a verification
 * took it, nothing to delete; `missing`: no upload recorded under this id; `not_due`: too early
 * by the activity's clock, call again at `dueAt` (epoch ms).
 */
export type ExpiryStep = { outcome: 'expired' | 'used' | 'missing' } | { outcome: 'not_due'; dueAt: number };

export interface UploadExpiryActivities {
  /** Idempotent: records UploadExpired at most once and deletes the file (again) whenever the upload is expired. */
  expireUpload(nonce: string): Promise<ExpiryStep>;
}

export interface UploadExpiryInput {
  /** The upload id's expiry (ISO 8601), as UploadReceived recorded it. */
  expires_at: string;
}

export type UploadExpiryOutcome = 'expired' | 'used' | 'missing';

/** Database or blob store hiccups are retried; after the last attempt the run fails and the sweep starts it again. */
const expire: ActivityOptions = {
  startToCloseTimeoutMs: 60_000,
  retry: { initialIntervalMs: 1_000, backoffCoefficient: 2, maximumIntervalMs: 60_000, maximumAttempts: 10 },
};

/** Never wait less than this between two calls (the activity's clock may run behind the workflow's). */
const MIN_WAIT_MS = 1_000;

export const uploadExpiryWorkflow: WorkflowDefinition<UploadExpiryInput, UploadExpiryActivities, UploadExpiryOutcome> = {
  type: UPLOAD_EXPIRY_WORKFLOW_TYPE,
  activities: { expireUpload: expire },

  async run(ctx, input) {
    // Derived from the recorded expiry: a run resumed after a restart keeps the same wake time.
    await ctx.sleepUntil(uploadDeletableAt(input.expires_at));
    for (;;) {
      const step = await ctx.activities.expireUpload(ctx.id);
      if (step.outcome !== 'not_due') return step.outcome;
      await ctx.sleepUntil(new Date(Math.max(step.dueAt, ctx.now().getTime() + MIN_WAIT_MS)));
    }
  },
};
