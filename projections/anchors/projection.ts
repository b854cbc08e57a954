import type { Knex } from 'knex';
import type { StoredEvent } from '../../src/core/es/event-store.js';
import { parseEvent } from '../../src/core/es/events.js';
import { PageRows } from '../../src/core/es/page-rows.js';
import { inclusionProof, sealedHeads } from '../../src/core/audit/merkle.js';
import { type Projector, unapplied as unappliedRows } from '../../src/core/es/projector.js';
import { streamInstance } from '../../src/core/es/streams.js';
import { anchorEvents } from '../../src/features/anchors/events.js';
import { psdExportEvents } from '../../src/features/psd-export/events.js';
import { verificationEvents } from '../../src/features/verifications/events.js';

/**
 * The anchoring of verifications (docs/audit.md, "Anchors"):
 * - `anchor_records`, one row per verification: its file digests from the moment it is queued,
 *   the head (revision, link hash) of each stream its audit bundle carries (`heads`: the
 *   verification's own and its PSD export's, sealedStreamsOf), the heads its last record sealed,
 *   and, once it has completed, whether a record waits for a batch: `waiting_position` (the
 *   position of the first change not yet sealed: the queue's order) and `waiting_since` (its
 *   time: when the batch falls due). Completion makes the first record wait; any later event
 *   on those streams (a RAW discarded, a claim, a PSD export's steps) makes another wait, so
 *   every event a bundle shows is sealed in a following batch. A verification deleted before
 *   its first sealing leaves the queue and the table; one sealed keeps its row, waiting no more.
 * - `anchor_items`, one row per record sealed: the verification's `anchored_in` item (leaf
 *   index, inclusion proof, signature: all computed here from the batch's event, so a rebuild
 *   gives the same items).
 * - `anchor_batches`, one row per sealed batch: its number, root, size and timestamp outcome
 *   (a token's `{ authority, token }`, or why there is none).
 */
export const anchorsProjector: Projector = {
  name: 'anchors',
  version: 2,
  tables: ['anchor_items', 'anchor_records', 'anchor_batches'],
  async migrate(knex) {
    await knex.raw(`
      create table if not exists anchor_records (
        verification_id uuid primary key,
        image_sha256 text not null,
        raw_sha256 text,
        heads jsonb not null,
        completed boolean not null default false,
        deleted boolean not null default false,
        sealed_heads jsonb,
        waiting_position numeric(20, 0),
        waiting_since timestamptz,
        last_position numeric(20, 0) not null
      )`);
    await knex.raw(`create index if not exists anchor_records_waiting_v2 on anchor_records (waiting_position) where waiting_position is not null`);
    await knex.raw(`
      create table if not exists anchor_items (
        verification_id uuid not null,
        batch_id text not null,
        sequence integer not null,
        item jsonb not null,
        primary key (verification_id, batch_id)
      )`);
    await knex.raw(`
      create table if not exists anchor_batches (
        batch_id text primary key,
        sequence integer not null unique,
        sealed_at timestamptz not null,
        root text not null,
        tree_size integer not null,
        timestamp jsonb,
        timestamp_failure text,
        last_position numeric(20, 0) not null
      )`);
  },
  apply: (trx, event) => applyPage(trx, [event]),
  applyAll: applyPage,
};

/** Each stream's head: its last event's revision and link hash. */
type Heads = Record<string, { revision: number; event_hash: string }>;

/** Whether two sets of heads are the same (the columns' jsonb equality). */
function sameHeads(a: Heads, b: Heads): boolean {
  const streams = Object.keys(a);
  return streams.length === Object.keys(b).length && streams.every((stream) => b[stream]?.revision === a[stream]!.revision && b[stream]?.event_hash === a[stream]!.event_hash);
}

interface RecordRow extends Record<string, unknown> {
  verification_id: string;
  heads: Heads;
  completed: boolean;
  deleted: boolean;
  sealed_heads: Heads | null;
  waiting_position: string | null;
  waiting_since: string | Date | null;
  last_position: string;
}

/** A change the page makes to a record (by verification id), or to a batch. */
type Step =
  | { record: string; stored: StoredEvent; verification: ReturnType<typeof parseEvent<typeof verificationEvents>> }
  | { batch: string; stored: StoredEvent; event: NonNullable<ReturnType<typeof parseEvent<typeof anchorEvents>>> };

/**
 * A page of events at once (issue 38): the page's records read in one statement and folded in
 * memory, event by event, then written in one statement per kind; a batch's items in one. Batch
 * rows (a handful per page at most) are written as their events come. An event a record already
 * reflects (its `last_position` is not older) changes nothing, so a replay changes nothing.
 */
async function applyPage(trx: Knex.Transaction, events: readonly StoredEvent[]): Promise<void> {
  const steps: Step[] = [];
  for (const stored of events) {
    const verification = parseEvent(verificationEvents, stored);
    if (verification) steps.push({ record: streamInstance('verification', stored.stream), stored, verification });
    else if (parseEvent(psdExportEvents, stored)) steps.push({ record: streamInstance('psdexport', stored.stream), stored, verification: null });
    else {
      const event = parseEvent(anchorEvents, stored);
      if (event) steps.push({ batch: streamInstance('anchor', stored.stream), stored, event });
    }
  }
  if (steps.length === 0) return;
  const ids = steps.flatMap((step) => ('record' in step ? [step.record] : step.event.type === 'AnchorBatchSealed' ? step.event.data.records.map((r) => r.record.verification_id) : []));
  const records = await PageRows.load<RecordRow>(trx, 'anchor_records', 'verification_id', ids, (row) => ({ ...row, heads: JSON.stringify(row.heads), sealed_heads: row.sealed_heads && JSON.stringify(row.sealed_heads) }));
  /** The record as the page left it, unless it reflects the event at `position` already. */
  const unapplied = (id: string, position: string) => {
    const row = records.get(id);
    return row && BigInt(row.last_position) < BigInt(position) ? row : undefined;
  };
  const items: Record<string, unknown>[] = [];
  for (const step of steps) {
    const position = step.stored.position.toString();
    if ('record' in step) {
      const { record: id, stored, verification } = step;
      const head = { [stored.stream]: { revision: stored.revision, event_hash: stored.hash } };
      if (verification?.type === 'VerificationQueued') {
        if (!records.get(id)) {
          records.put(id, { verification_id: id, image_sha256: verification.data.image.sha256, raw_sha256: verification.data.raw?.sha256 ?? null, heads: head, completed: false, deleted: false, sealed_heads: null, waiting_position: null, waiting_since: null, last_position: position });
        }
        continue;
      }
      const row = unapplied(id, position);
      if (!row) continue;
      if (verification?.type === 'VerificationDeleted') {
        // Never sealed: it leaves the queue. Sealed: its records stand, nothing more waits.
        if (row.sealed_heads === null) records.remove(id);
        else records.put(id, { ...row, deleted: true, waiting_position: null, waiting_since: null, last_position: position });
        continue;
      }
      if (row.deleted) continue;
      // A record waits once the verification has completed: from the first change not yet sealed.
      const waits = row.completed || verification?.type === 'VerificationCompleted';
      records.put(id, {
        ...row,
        heads: { ...row.heads, ...head },
        completed: waits,
        waiting_position: waits ? (row.waiting_position ?? position) : row.waiting_position,
        waiting_since: waits ? (row.waiting_since ?? stored.metadata.occurred_at) : row.waiting_since,
        last_position: position,
      });
      continue;
    }
    const { batch: batchId, event } = step;
    switch (event.type) {
      case 'AnchorBatchSealed': {
        const d = event.data;
        await trx('anchor_batches')
          .insert({ batch_id: batchId, sequence: Number(batchId), sealed_at: d.sealed_at, root: d.root, tree_size: d.tree_size, timestamp: null, timestamp_failure: null, last_position: position })
          .onConflict('batch_id')
          .ignore();
        const leaves = d.records.map((r) => r.record_hash);
        for (const [leafIndex, { record, record_hash }] of d.records.entries()) {
          const item = {
            batch_id: d.batch_id,
            sealed_at: d.sealed_at,
            root: d.root,
            tree_size: d.tree_size,
            leaf_index: leafIndex,
            record,
            record_hash,
            inclusion_proof: inclusionProof(leaves, leafIndex),
            signature: d.signature,
          };
          items.push({ verification_id: record.verification_id, batch_id: batchId, sequence: Number(batchId), item: JSON.stringify(item) });
          // The heads this record seals; nothing waits any more unless a stream grew while the batch was sealed.
          const sealed = Object.fromEntries(sealedHeads(record).map((h) => [h.stream, { revision: h.revision, event_hash: h.event_hash }]));
          const row = unapplied(record.verification_id, position);
          if (!row) continue;
          const settled = sameHeads(row.heads, sealed);
          records.put(record.verification_id, {
            ...row,
            sealed_heads: sealed,
            waiting_position: settled ? null : row.waiting_position,
            waiting_since: settled ? null : row.waiting_since,
            last_position: position,
          });
        }
        break;
      }
      case 'AnchorBatchTimestamped':
        await unappliedRows(trx, 'anchor_batches', { batch_id: batchId }, position).update({
          timestamp: JSON.stringify({ authority: event.data.authority, token: event.data.token }),
          last_position: position,
        });
        break;
      case 'AnchorTimestampFailed':
        await unappliedRows(trx, 'anchor_batches', { batch_id: batchId }, position).update({ timestamp_failure: event.data.reason, last_position: position });
        break;
    }
  }
  await records.write(trx);
  for (let i = 0; i < items.length; i += 500) await trx('anchor_items').insert(items.slice(i, i + 500)).onConflict(['verification_id', 'batch_id']).ignore();
}
