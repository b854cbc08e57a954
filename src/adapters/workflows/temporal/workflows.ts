/**
 * The verification workflow: deterministic code only (no Node built-ins, no I/O, no clocks but
 * the workflow's). Every effect is an activity (./activities.ts), imported as a type.
 */
import { ActivityFailure, ApplicationFailure, CancellationScope, isCancellation, proxyActivities, sleep, type RetryPolicy } from '@temporalio/workflow';
import type { TemporalActivities } from './activities.js';
import { DEADLINE_REASON, REJECTED, STEP_FAILED } from './shared.js';

/**
 * Transient errors (database, blob store, a dying worker) are retried with backoff; business
 * failures (`VerificationRejected`) never are. Every step is idempotent in the decider, so a
 * retry after a partial attempt records nothing twice.
 */
const retry: RetryPolicy = {
  initialInterval: '1 second',
  backoffCoefficient: 2,
  maximumInterval: '30 seconds',
  maximumAttempts: 4,
  nonRetryableErrorTypes: [REJECTED],
};

const { snapshot, start, signAndRender, thumbnail, complete } = proxyActivities<TemporalActivities>({
  startToCloseTimeout: '2 minutes',
  retry,
});

const { analyzeAndGrade } = proxyActivities<TemporalActivities>({
  startToCloseTimeout: '10 minutes',
  heartbeatTimeout: '30 seconds',
  retry,
});

/** Recording the failure must not give up on a transient error: it is what ends the verification. */
const { fail } = proxyActivities<TemporalActivities>({
  startToCloseTimeout: '1 minute',
  retry: { ...retry, maximumAttempts: 20, maximumInterval: '1 minute' },
});

export type VerificationOutcome = 'completed' | 'failed' | 'already_finished';

export async function verificationWorkflow(id: string): Promise<VerificationOutcome> {
  const verification = await snapshot(id);
  if (verification.status !== 'queued' && verification.status !== 'in_progress') return 'already_finished';
  const { accountId, deadlineAt } = verification;
  try {
    // The deadline runs from queued_at, not from this run's start: a workflow re-submitted
    // after an outage keeps the verification's original 10 minutes.
    await beforeDeadline(deadlineAt - Date.now(), async () => {
      await start(id);
      await analyzeAndGrade(id);
      await signAndRender(id);
    });
    await thumbnail(id);
    await complete(id, accountId);
    return 'completed';
  } catch (error) {
    if (isCancellation(error) && !(error instanceof DeadlineExceeded)) throw error; // cancelled from outside
    await CancellationScope.nonCancellable(() => fail(id, accountId, reasonFor(error)));
    return 'failed';
  }
}

class DeadlineExceeded extends Error {
  override readonly name = 'DeadlineExceeded';
}

/**
 * Races `work` against a durable timer. When the timer wins, the steps' scope is cancelled
 * (a running activity is asked to stop) and DeadlineExceeded is thrown.
 */
async function beforeDeadline(remainingMs: number, work: () => Promise<void>): Promise<void> {
  if (remainingMs <= 0) throw new DeadlineExceeded(DEADLINE_REASON);
  let expired = false;
  const steps = new CancellationScope();
  const timer = new CancellationScope();
  const alarm = timer.run(async () => {
    await sleep(remainingMs);
    expired = true;
    steps.cancel();
  });
  try {
    await steps.run(work);
  } catch (error) {
    if (expired) throw new DeadlineExceeded(DEADLINE_REASON);
    throw error;
  } finally {
    timer.cancel();
    await alarm.catch(() => undefined); // the cancelled timer rejects: expected
  }
}

/** The failure_reason the user sees; null lets the activity supply the generic one. */
function reasonFor(error: unknown): string | null {
  if (error instanceof DeadlineExceeded) return DEADLINE_REASON;
  const cause = error instanceof ActivityFailure ? error.cause : error;
  if (cause instanceof ApplicationFailure && (cause.type === REJECTED || cause.type === STEP_FAILED)) return cause.message;
  return null;
}
