/**
 * THE anonymous claim window workflow, run by both engines (workflows/definition.ts): one run
 * per anonymous verification (id: the verification's id), started when it is created. It sleeps
 * on a durable timer until the window's end (queued_at + 30 days, spec 8) and then, if the
 * verification is still unclaimed, records ClaimWindowClosed and, as a second step (a run killed
 * between them resumes there), deletes its files (image, RAW, renditions); the record stays, so a later claim answers 410 CLAIM_EXPIRED. A verification
 * claimed (or deleted) before then is left alone. Deterministic code only: Temporal's workflow
 * bundle includes this module.
 */
import { type DueStep, recoveryStep, whenDue, type WorkflowDefinition } from '../definition.js';

export const CLAIM_WINDOW_WORKFLOW_TYPE = 'claimWindow';

/**
 * `closed`: ClaimWindowClosed recorded (now or before) and the files deleted; `claimed`: the
 * verification was claimed or deleted in time: nothing to do; `not_due`: too early by the
 * activity's clock, call again at `dueAt` (epoch ms).
 */
export type ClaimWindowStep = DueStep<'closed' | 'claimed'>;

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


const close = recoveryStep();

export const claimWindowWorkflow: WorkflowDefinition<ClaimWindowInput, ClaimWindowActivities, ClaimWindowOutcome> = {
  type: CLAIM_WINDOW_WORKFLOW_TYPE,
  activities: { closeClaimWindow: close, deleteExpiredFiles: close },

  run: (ctx, input) =>
    whenDue(ctx, new Date(input.closes_at), async () => {
      const step = await ctx.activities.closeClaimWindow(ctx.id);
      if (step.outcome === 'closed') await ctx.activities.deleteExpiredFiles(ctx.id);
      return step;
    }),
};
