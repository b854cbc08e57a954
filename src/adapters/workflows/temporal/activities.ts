import { ApplicationFailure, Context } from '@temporalio/activity';
import type { Logger } from 'pino';
import { VERIFICATION_DEADLINE_MS } from '../../../features/verifications/decider.js';
import { AppError } from '../../../core/errors.js';
import { failureReason, type VerificationActivities } from '../../../features/verifications/activities.js';
import { REJECTED, STEP_FAILED } from './shared.js';

const HEARTBEAT_MS = 5_000;

/** What the workflow needs to know before it starts; plain JSON (workflow arguments and results are serialised). */
export interface VerificationSnapshot {
  status: 'none' | 'queued' | 'in_progress' | 'completed' | 'failed' | 'deleted';
  accountId: string | null;
  /** Epoch milliseconds: queued_at + 10 minutes. */
  deadlineAt: number;
}

/**
 * The Temporal activities: thin wrappers over the verification steps both engines share
 * (workflows/verification/activities.ts). They return JSON-safe values only and translate
 * errors: an AppError (the user's file, our rule) becomes a non-retryable ApplicationFailure of
 * type `VerificationRejected` carrying the user-facing reason; anything else is logged and
 * rethrown as a retryable `VerificationStepFailed` with the generic reason.
 */
export function createTemporalActivities(steps: VerificationActivities, log: Logger) {
  async function guard<T>(step: string, id: string, work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      if (error instanceof AppError) {
        throw ApplicationFailure.create({ type: REJECTED, message: failureReason(error), nonRetryable: true, details: [error.code] });
      }
      const attempt = activityAttempt();
      log.error({ err: error, verification: id, step, attempt }, 'verification step failed');
      throw ApplicationFailure.create({ type: STEP_FAILED, message: failureReason(error), details: [(error as Error)?.message ?? String(error)] });
    }
  }

  return {
    async snapshot(id: string): Promise<VerificationSnapshot> {
      return guard('snapshot', id, async () => {
        const state = await steps.load(id);
        return { status: state.status, accountId: state.accountId ?? null, deadlineAt: (state.queuedAt?.getTime() ?? 0) + VERIFICATION_DEADLINE_MS };
      });
    },

    async start(id: string): Promise<void> {
      await guard('start', id, () => steps.start(id));
    },

    /** The long step (RAW decode and eight analyses): heartbeats so a dead worker is noticed in seconds, not minutes. */
    async analyzeAndGrade(id: string): Promise<void> {
      const context = Context.current();
      context.heartbeat({ step: 'analyzeAndGrade' });
      const beat = setInterval(() => context.heartbeat({ step: 'analyzeAndGrade' }), HEARTBEAT_MS);
      try {
        await guard('analyzeAndGrade', id, () => steps.analyzeAndGrade(id));
      } finally {
        clearInterval(beat);
      }
    },

    async signAndRender(id: string): Promise<void> {
      await guard('signAndRender', id, () => steps.signAndRender(id));
    },

    async thumbnail(id: string): Promise<void> {
      await guard('thumbnail', id, () => steps.thumbnail(id));
    },

    async complete(id: string, accountId: string | null): Promise<void> {
      await guard('complete', id, () => steps.complete(id, accountId as string));
    },

    /** `reason` null: a failure without a message of ours (timeouts, exhausted retries): the generic reason. */
    async fail(id: string, accountId: string | null, reason: string | null): Promise<void> {
      await guard('fail', id, () => steps.fail(id, accountId, reason ?? failureReason(null)));
    },
  };
}

export type TemporalActivities = ReturnType<typeof createTemporalActivities>;

function activityAttempt(): number | undefined {
  try {
    return Context.current().info.attempt;
  } catch {
    return undefined;
  }
}
