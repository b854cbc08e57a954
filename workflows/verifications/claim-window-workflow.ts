/**
 * THE anonymous claim window workflow, run by both engines (workflows/definition.ts): one run
 * per anonymous verification (id: the verification's id), started when it is created. It sleeps
 * on a durable timer until the window's end (queued_at + 30 days, spec 8) and then, if the
 * verification is still unclaimed, records ClaimWindowClosed and, as a second step (a run killed
 * between them resumes there), deletes its files (image, RAW, renditions); the record stays, so a later claim answers 410 CLAIM_EXPIRED. A verification
 * claimed (or deleted) before then is left alone. Deterministic code only: Temporal's workflow
 * bundle includes this module.
 */
import type { ActivityOptions, WorkflowDefinition } from '../definition.js';

export const CLAIM_WINDOW_WORKFLOW_TYPE = 'claimWindow';

/**
 * `closed`: ClaimWindowClosed recorded (now or before) and the files deleted; `claimed`: the
 * verification was claimed or deleted in time: nothing to do; `not_due`: too early by the
 * activity's clock, call again at `dueAt` (epoch ms).
 */
export type ClaimWindowStep = { outcome: 'closed' | 'claimed' } | { outcome: 'not_due'; dueAt: number };

export interface ClaimWindowActivities {
  /** Idempotent: records ClaimWindowClosed at most once, when due and unclaimed; `closed` once it is recorded. */
  closeClaimWindow(verificationId: string): Promise<ClaimWindowStep>;
  /** Deletes every file of a verification whose ClaimWindowClosed is recorded (missing files are fine). */
  deleteExpiredFiles(verificationId: string): Promise<void>;
}

export interface ClaimWindowInput {
  /** The window's end (ISO 8601): the verification's queued_at + 30 days. */
  closes_at: string;
}

export type ClaimWindowOutcome = 'closed' | 'claimed';

/** Database and blob store hiccups are retried; after the last attempt the run fails and the sweep starts it again. */
const close: ActivityOptions = {
  startToCloseTimeoutMs: 60_000,
  retry: { initialIntervalMs: 1_000, backoffCoefficient: 2, maximumIntervalMs: 60_000, maximumAttempts: 10 },
};

/** Never wait less than this between two calls (the activity's clock may run behind the workflow's). */
const MIN_WAIT_MS = 1_000;

export const claimWindowWorkflow: WorkflowDefinition<ClaimWindowInput, ClaimWindowActivities, ClaimWindowOutcome> = {
  type: CLAIM_WINDOW_WORKFLOW_TYPE,
  activities: { closeClaimWindow: close, deleteExpiredFiles: close },

  async run(ctx, input) {
    // From the recorded end: a run resumed after a restart keeps the same wake time.
    await ctx.sleepUntil(new Date(input.closes_at));
    for (;;) {
      const step = await ctx.activities.closeClaimWindow(ctx.id);
      if (step.outcome === 'closed') await ctx.activities.deleteExpiredFiles(ctx.id);
      if (step.outcome !== 'not_due') return step.outcome;
      await ctx.sleepUntil(new Date(Math.max(step.dueAt, ctx.now().getTime() + MIN_WAIT_MS)));
    }
  },
};
