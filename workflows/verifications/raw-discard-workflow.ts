/**
 * THE RAW discard workflow, run by both engines (workflows/definition.ts): one run per
 * verification (id: the verification's id), started by its sweep for a finished verification
 * whose RAW's file is still kept. The verification workflow discards the RAW itself when it
 * finishes (its last steps); this run covers what that left: a process killed between the
 * verification's last event and the discard, or verifications finished before the discard
 * existed. Two steps: RawFileDiscarded recorded once, then the file deleted; a run killed between
 * them resumes and deletes it. Deterministic code only: Temporal's workflow bundle includes this module.
 */
import type { ActivityOptions, WorkflowDefinition } from '../definition.js';

export const RAW_DISCARD_WORKFLOW_TYPE = 'rawDiscard';

/**
 * `discarded`: RawFileDiscarded recorded (now or before) and the file deleted; `kept`: RAW_RETENTION=keep;
 * `nothing`: no RAW, not finished, or deleted.
 */
export type RawDiscardOutcome = 'discarded' | 'kept' | 'nothing';

export interface RawDiscardActivities {
  /** Idempotent: records RawFileDiscarded at most once (with the full-size rendering made first, if missing); `discarded` once it is recorded. */
  recordRawDiscard(verificationId: string): Promise<RawDiscardOutcome>;
  /** Deletes the RAW's file of a verification whose RawFileDiscarded is recorded (a missing file is fine). */
  deleteRawFile(verificationId: string): Promise<void>;
}

/** Nothing: the id says which verification. */
export type RawDiscardInput = Record<string, never>;

/** Database and blob store hiccups are retried; after the last attempt the run fails and the sweep starts it again. */
const retry = { initialIntervalMs: 1_000, backoffCoefficient: 2, maximumIntervalMs: 60_000, maximumAttempts: 10 };
const discard: ActivityOptions = { startToCloseTimeoutMs: 60_000, retry };
/** May first render the RAW (a pair analysed before its rendering was kept), in a thread shared with the analyses. */
const record: ActivityOptions = { startToCloseTimeoutMs: 10 * 60_000, heartbeatTimeoutMs: 60_000, retry };

export const rawDiscardWorkflow: WorkflowDefinition<RawDiscardInput, RawDiscardActivities, RawDiscardOutcome> = {
  type: RAW_DISCARD_WORKFLOW_TYPE,
  activities: { recordRawDiscard: record, deleteRawFile: discard },

  async run(ctx) {
    const outcome = await ctx.activities.recordRawDiscard(ctx.id);
    if (outcome === 'discarded') await ctx.activities.deleteRawFile(ctx.id);
    return outcome;
  },
};
