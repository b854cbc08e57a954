/**
 * THE verification workflow, run by both engines (workflows/definition.ts). Deterministic code
 * only: Temporal's workflow bundle includes this module, so it imports types and the port's
 * pure helpers, nothing else. The steps are the activities of ./activities.ts
 * (`createVerificationWorkflowActivities`).
 *
 * Temporal replays recorded histories against this code (test/workflows/histories): the
 * order of activities and timers is part of the contract. Change it only with versioning.
 */
import { ActivityFailed, isDeadlineExceeded, type ActivityOptions, type RetryPolicy, type WorkflowDefinition } from '../definition.js';

export const VERIFICATION_WORKFLOW_TYPE = 'verification';

/** ActivityError types the verification activities throw. */
export const REJECTED = 'VerificationRejected'; // a business failure: the reason is the message, never retried
export const STEP_FAILED = 'VerificationStepFailed'; // unexpected: retried, then fails the verification generically
export const SERVICE_FAULT = 'VerificationServiceFault'; // the service could not finish (a stalled decoder): retried, then a service fault

export const DEADLINE_REASON = 'The verification did not complete within 10 minutes.';
/** The reason of an unexpected failure (a bug, an outage that outlasted the retries). */
export const GENERIC_REASON = 'The analysis failed unexpectedly; the incident was logged. It was not counted against your quota; you may upload the pair again.';
/** A service fault, in words that do not blame the file (DESIGN.md robustness rule on timeouts). */
export const SERVICE_FAULT_REASON =
  'The service could not finish analysing this pair (it was too busy); this is not a problem with your files. The verification was not counted against your quota; upload the pair again to retry.';

/**
 * Whose a failure is: `input` for a rejection's (`VerificationRejected`, the user's file or our
 * rule), `service` for every other (the deadline, a service fault, an unexpected error). A
 * verification that failed by the service's fault is not metered (its metering is released,
 * D-094). Recorded on VerificationFailed as `fault` (src/features/verifications/events.ts).
 */
export type FailureFault = 'service' | 'input';

/** What the workflow needs to know before it starts; plain JSON. */
export interface VerificationSnapshot {
  status: 'none' | 'queued' | 'in_progress' | 'completed' | 'failed' | 'deleted';
  accountId: string | null;
  /** Epoch milliseconds: queued_at + 10 minutes. */
  deadlineAt: number;
}

/** The steps as workflow code calls them (JSON in, JSON out). */
export interface VerificationWorkflowActivities {
  snapshot(id: string): Promise<VerificationSnapshot>;
  start(id: string): Promise<void>;
  /** The long step (RAW decode and eight analyses); stops when its signal aborts. */
  analyzeAndGrade(id: string): Promise<void>;
  signAndRender(id: string): Promise<void>;
  thumbnail(id: string): Promise<void>;
  complete(id: string, accountId: string | null): Promise<void>;
  /**
   * `reason` null: a failure without a message of ours (timeouts, exhausted retries): the generic reason.
   * `fault` absent: a call scheduled by a run of an earlier version (it is read from the reason then).
   */
  fail(id: string, accountId: string | null, reason: string | null, fault?: FailureFault): Promise<void>;
}

/** Nothing: the id says which verification. */
export type VerificationWorkflowInput = Record<string, never>;

export type VerificationOutcome = 'completed' | 'failed' | 'already_finished';

/**
 * Transient errors (database, blob store, a dying worker, a stalled decoder) are retried with backoff; business
 * failures (`VerificationRejected`) never are. Every step is idempotent in the decider, so a
 * retry after a partial attempt records nothing twice.
 */
const retry: RetryPolicy = {
  initialIntervalMs: 1_000,
  backoffCoefficient: 2,
  maximumIntervalMs: 30_000,
  maximumAttempts: 4,
  nonRetryableErrorTypes: [REJECTED],
};

const step: ActivityOptions = { startToCloseTimeoutMs: 2 * 60_000, retry };
/** Heartbeats (every 5 s on Temporal): a killed worker's analysis is retried elsewhere within ~30 s. */
const analysis: ActivityOptions = { startToCloseTimeoutMs: 10 * 60_000, heartbeatTimeoutMs: 30_000, retry };
/** Recording the failure must not give up on a transient error: it is what ends the verification. */
const recordFailure: ActivityOptions = { startToCloseTimeoutMs: 60_000, retry: { ...retry, maximumAttempts: 20, maximumIntervalMs: 60_000 } };

export const verificationWorkflow: WorkflowDefinition<VerificationWorkflowInput, VerificationWorkflowActivities, VerificationOutcome> = {
  type: VERIFICATION_WORKFLOW_TYPE,
  activities: {
    snapshot: step,
    start: step,
    analyzeAndGrade: analysis,
    signAndRender: step,
    thumbnail: step,
    complete: step,
    fail: recordFailure,
  },

  async run(ctx) {
    const { id, activities: a } = ctx;
    const verification = await a.snapshot(id);
    if (verification.status !== 'queued' && verification.status !== 'in_progress') return 'already_finished';
    const { accountId, deadlineAt } = verification;
    try {
      // The deadline runs from queued_at, not from this run's start: a workflow re-started
      // after an outage or a crash keeps the verification's original 10 minutes.
      await ctx.withDeadline(new Date(deadlineAt), async () => {
        await a.start(id);
        await a.analyzeAndGrade(id);
        await a.signAndRender(id);
      });
      await a.thumbnail(id);
      await a.complete(id, accountId);
      return 'completed';
    } catch (error) {
      if (ctx.isCancellation(error)) throw error; // interrupted from outside: resumed or restarted later
      await ctx.nonCancellable(() => a.fail(id, accountId, reasonFor(error), faultOf(error)));
      return 'failed';
    }
  },
};

/** Whose the failure is: a rejection is the input's, anything else (deadline, service fault, unexpected) the service's. */
function faultOf(error: unknown): FailureFault {
  return error instanceof ActivityFailed && error.type === REJECTED && !isDeadlineExceeded(error) ? 'input' : 'service';
}

/** The failure_reason the user sees; null lets the activity supply the generic one. */
function reasonFor(error: unknown): string | null {
  if (isDeadlineExceeded(error)) return DEADLINE_REASON;
  if (error instanceof ActivityFailed && error.type === REJECTED) return error.message;
  if (error instanceof ActivityFailed && error.type === SERVICE_FAULT) return SERVICE_FAULT_REASON;
  return null;
}
