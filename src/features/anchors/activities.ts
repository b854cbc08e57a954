import { systemContext } from '../../core/es/commands.js';
import { foldStream, runCommand } from '../../core/es/decider.js';
import type { AppDeps } from '../../core/module/deps.js';
import type { AnchorRecord } from '../../core/audit/merkle.js';
import type { ActivityImplementations, SweepSource } from '../../core/es/workflow.js';
import { httpTimestamper } from '../../provenance/timestamp.js';
import { anchorDecider, anchorStream } from './decider.js';
import { anchorEvents } from './events.js';
import { lastSealedBatch, waitingRecords, type AnchorRecordRow } from '../../../projections/anchors/index.js';
import { sealBatch } from './seal.js';
import { anchorRunId, type AnchorBatchActivities, type AnchorBatchInput } from '../../../workflows/anchors/workflow.js';

export type AnchorActivityDeps = Pick<AppDeps, 'store' | 'knex' | 'now' | 'config' | 'readModels' | 'signer'>;

/** Batch n - 1 not recorded yet (a run started early): ask again this much later. */
const RECHECK_MS = 60_000;

/** The read models reach a just-recorded batch within this (they run in the same process). */
const READ_MODEL_WAIT_MS = 30_000;

/** The anchors are the service's own record, in no account, under one correlation id per batch. */
const anchorContext = (deps: AnchorActivityDeps, batchId: string) =>
  systemContext(deps, { actor: { type: 'system', id: 'anchors' }, correlationId: `anchor-${batchId}`, accountId: null });

/** A waiting verification's record: every stream its bundle carries, at its head as the read model shows it (issue 35). */
function recordOf(row: AnchorRecordRow): AnchorRecord {
  const heads = typeof row.heads === 'string' ? (JSON.parse(row.heads) as Exclude<AnchorRecordRow['heads'], string>) : row.heads;
  return {
    verification_id: row.verification_id,
    streams: Object.keys(heads)
      .sort()
      .map((stream) => ({ stream, revision: Number(heads[stream]!.revision), event_hash: heads[stream]!.event_hash })),
    image_sha256: row.image_sha256,
    raw_sha256: row.raw_sha256,
  };
}

/**
 * The anchor batch's steps (workflows/anchors/workflow.ts). Batch n is formed only from records
 * the read model shows waiting once it includes batch n - 1 (waited for by position), and is
 * appended to a stream that must not exist yet: a concurrent or repeated sealing of n records
 * nothing, so no record is in two batches.
 */
export function createAnchorActivities(deps: AnchorActivityDeps): ActivityImplementations<AnchorBatchActivities> {
  return {
    async sealAnchorBatch(_context, batchId) {
      if ((await deps.store.readStream(anchorStream(batchId))).length > 0) return { outcome: 'recorded' };
      const sequence = Number(batchId);
      if (sequence > 1) {
        const previous = await deps.store.readStream(anchorStream(String(sequence - 1)));
        // Batch n - 1 not recorded: this run was started too early; ask again later.
        if (previous.length === 0) return { outcome: 'not_due', recheckAt: deps.now().getTime() + RECHECK_MS };
        if (!(await deps.readModels.waitFor(previous[0]!.position, READ_MODEL_WAIT_MS))) throw new Error(`the read models have not reached anchor batch ${sequence - 1} yet`);
      }
      const size = deps.config.ANCHOR_BATCH_SIZE;
      const rows = await waitingRecords(deps.knex, size);
      if (rows.length === 0) return { outcome: 'empty' };
      const now = deps.now();
      const dueAt = new Date(rows[0]!.waiting_since!).getTime() + deps.config.ANCHOR_INTERVAL_SECONDS * 1000;
      if (rows.length < size && now.getTime() < dueAt) return { outcome: 'not_due', recheckAt: dueAt };
      return { outcome: 'due', batch: sealBatch(batchId, rows.map(recordOf), now, await deps.signer()) };
    },

    async recordAnchorBatch(_context, batch) {
      const data = anchorEvents.AnchorBatchSealed.schema.parse(batch);
      await runCommand(deps.store, anchorStream(batch.batch_id), anchorDecider, { type: 'Seal', batch: data }, anchorContext(deps, batch.batch_id));
    },

    async timestampAnchorBatch(_context, batchId) {
      const stream = anchorStream(batchId);
      const { state } = await foldStream(deps.store, stream, anchorDecider);
      if (state.status !== 'sealed') throw new Error(`anchor batch ${batchId} is not recorded`);
      if (state.timestamp !== 'pending') return state.timestamp;
      const authority = deps.config.ANCHOR_TSA_URL;
      if (!authority) return 'none';
      // RFC 3161 over SHA-256 of the signed tree head's bytes (timestampRequest digests the message).
      const token = await httpTimestamper(authority)(Buffer.from(state.batch.signature.signed, 'utf8'));
      await runCommand(deps.store, stream, anchorDecider, { type: 'RecordTimestamp', authority, token: Buffer.from(token).toString('base64'), now: deps.now() }, anchorContext(deps, batchId));
      return 'granted';
    },

    async recordAnchorTimestampFailure(_context, batchId, reason) {
      await runCommand(deps.store, anchorStream(batchId), anchorDecider, { type: 'RecordTimestampFailure', authority: deps.config.ANCHOR_TSA_URL ?? '', reason, now: deps.now() }, anchorContext(deps, batchId));
    },
  };
}

/**
 * A run for the next batch whenever a completed verification waits for one, and one more when a
 * full batch waits (that one finds the batch due at once, so a full batch is sealed within a
 * sweep however long the other still sleeps; it then finds the batch recorded). A run's id is the
 * batch number with the oldest waiting record and the time it falls due (or `full`): a repeated
 * sweep, or one after a kill, starts nothing new, and a changed ANCHOR_INTERVAL_SECONDS starts a
 * run that waits for the new time instead of the one a sleeping run was started with.
 */
export function anchorBatchSweep(config: Pick<AppDeps['config'], 'ANCHOR_BATCH_SIZE' | 'ANCHOR_INTERVAL_SECONDS'>) {
  return async ({ knex }: SweepSource): Promise<{ id: string; input: AnchorBatchInput }[]> => {
    const waiting = await waitingRecords(knex, config.ANCHOR_BATCH_SIZE);
    const oldest = waiting[0];
    if (!oldest) return [];
    const batchId = String((await lastSealedBatch(knex)) + 1);
    const dueAt = new Date(oldest.waiting_since!).getTime() + config.ANCHOR_INTERVAL_SECONDS * 1000;
    const runs = [{ id: anchorRunId(batchId, `${oldest.verification_id}:${dueAt}`), input: { batch_id: batchId } }];
    if (waiting.length >= config.ANCHOR_BATCH_SIZE) runs.push({ id: anchorRunId(batchId, 'full'), input: { batch_id: batchId } });
    return runs;
  };
}
