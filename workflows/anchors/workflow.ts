/**
 * THE anchor batch workflow, run by both engines (workflows/definition.ts): one run per batch
 * number, first waiting record and the time the batch falls due (id `<batch number>:<verification
 * id>:<due epoch ms>`, given by the sweep, which starts one whenever a completed verification waits
 * for a batch, and `<batch number>:full` when a full batch waits: docs/audit.md "Anchors").
 *
 * 1. `sealAnchorBatch` says whether batch n is due: its oldest waiting record has waited the
 *    interval, or a full batch waits. Not yet: the run sleeps on a durable timer until the oldest
 *    has waited the interval, and asks again.
 *    Due: it returns the batch sealed (records, Merkle root, signed tree head), not yet recorded.
 * 2. `recordAnchorBatch` appends it to `anchor-<n>`, once: a batch already recorded (a racing
 *    run, a run resumed after a kill between 1 and 2 or after 2) stays as it is, so a record is
 *    never lost (still waiting, it goes in this batch or the next) nor in two batches (batch
 *    n + 1 is only formed once batch n is recorded).
 * 3. `timestampAnchorBatch` asks the configured RFC 3161 authority for a token over the signed
 *    tree head and records it; after its last attempt fails, `recordAnchorTimestampFailure`
 *    records why, and the batch stays sealed and signed without a timestamp.
 * Deterministic code only: Temporal's workflow bundle includes this module.
 */
import { ActivityFailed, type ActivityOptions, recoveryStep, sleepAtLeastUntil, type WorkflowDefinition } from '../definition.js';

export const ANCHOR_BATCH_WORKFLOW_TYPE = 'anchorBatch';

/** The run of batch `batchId` that `trigger` set off: the oldest waiting record and its due time as the sweep saw them, or `full`. */
export const anchorRunId = (batchId: string, trigger: string) => `${batchId}:${trigger}`;

export interface AnchorBatchInput {
  /** The batch's number ("1", "2", …): batch n is sealed only once batch n - 1 is recorded. */
  batch_id: string;
}

/** A batch as sealed (docs/audit.md "Anchors"): the AnchorBatchSealed event's data. */
export interface SealedAnchorBatch {
  batch_id: string;
  sealed_at: string;
  root: string;
  tree_size: number;
  records: { record: Record<string, unknown>; record_hash: string }[];
  signature: { algorithm: 'ES256'; value: string; signed: string; certificate_chain: string[] };
}

/**
 * `recorded`: batch n is recorded already (by this run before a restart, or another); `due`: seal
 * and record this; `not_due`: ask again at `recheckAt` (epoch ms); `empty`: nothing waits any more
 * (the records the sweep saw were deleted): the sweep starts another run when one waits again.
 */
export type SealStep =
  | { outcome: 'recorded' }
  | { outcome: 'due'; batch: SealedAnchorBatch }
  | { outcome: 'not_due'; recheckAt: number }
  | { outcome: 'empty' };

/** `granted`: the token is recorded; `failed`: the failure is recorded; `none`: no authority is configured. */
export type TimestampOutcome = 'granted' | 'failed' | 'none';

export interface AnchorBatchActivities {
  sealAnchorBatch(batchId: string): Promise<SealStep>;
  /** Idempotent: records the batch unless batch n is recorded already. */
  recordAnchorBatch(batch: SealedAnchorBatch): Promise<void>;
  /** Idempotent: asks for a token and records it, unless an outcome is recorded already. */
  timestampAnchorBatch(batchId: string): Promise<TimestampOutcome>;
  recordAnchorTimestampFailure(batchId: string, reason: string): Promise<void>;
}

export type AnchorBatchOutcome = 'sealed' | 'empty';

const store = recoveryStep();

/** An unreachable or refusing authority is asked again for about half an hour before the batch goes without a timestamp. */
const timestamp: ActivityOptions = {
  startToCloseTimeoutMs: 30_000,
  retry: { initialIntervalMs: 5_000, backoffCoefficient: 2, maximumIntervalMs: 600_000, maximumAttempts: 6 },
};

export const anchorBatchWorkflow: WorkflowDefinition<AnchorBatchInput, AnchorBatchActivities, AnchorBatchOutcome> = {
  type: ANCHOR_BATCH_WORKFLOW_TYPE,
  activities: { sealAnchorBatch: store, recordAnchorBatch: store, timestampAnchorBatch: timestamp, recordAnchorTimestampFailure: store },

  async run(ctx, input) {
    for (;;) {
      const step = await ctx.activities.sealAnchorBatch(input.batch_id);
      if (step.outcome === 'empty') return 'empty';
      if (step.outcome === 'recorded') break;
      if (step.outcome === 'due') {
        await ctx.activities.recordAnchorBatch(step.batch);
        break;
      }
      await sleepAtLeastUntil(ctx, step.recheckAt);
    }
    try {
      await ctx.activities.timestampAnchorBatch(input.batch_id);
    } catch (error) {
      if (ctx.isCancellation(error) || !(error instanceof ActivityFailed)) throw error;
      await ctx.nonCancellable(() => ctx.activities.recordAnchorTimestampFailure(input.batch_id, error.message));
    }
    return 'sealed';
  },
};
