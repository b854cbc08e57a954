import { parseEvent } from '../../src/core/es/events.js';
import { inclusionProof, sealedHeads } from '../../src/core/audit/merkle.js';
import { type Projector, unapplied } from '../../src/core/es/projector.js';
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
  async apply(trx, stored) {
    const position = stored.position.toString();
    const head = JSON.stringify({ [stored.stream]: { revision: stored.revision, event_hash: stored.hash } });
    const verification = parseEvent(verificationEvents, stored);
    const psdExport = verification ? null : parseEvent(psdExportEvents, stored);
    if (verification || psdExport) {
      const verificationId = verification ? streamInstance('verification', stored.stream) : streamInstance('psdexport', stored.stream);
      const row = () => unapplied(trx, 'anchor_records', { verification_id: verificationId }, position);
      if (verification?.type === 'VerificationQueued') {
        await trx('anchor_records')
          .insert({ verification_id: verificationId, image_sha256: verification.data.image.sha256, raw_sha256: verification.data.raw?.sha256 ?? null, heads: head, last_position: position })
          .onConflict('verification_id')
          .ignore();
        return;
      }
      if (verification?.type === 'VerificationDeleted') {
        // Never sealed: it leaves the queue. Sealed: its records stand, nothing more waits.
        await row().whereNull('sealed_heads').delete();
        await row().update({ deleted: true, waiting_position: null, waiting_since: null, last_position: position });
        return;
      }
      const completes = verification?.type === 'VerificationCompleted';
      await row()
        .where({ deleted: false })
        .update({
          heads: trx.raw('heads || ?::jsonb', [head]),
          completed: completes ? true : trx.raw('completed'),
          // A record waits once the verification has completed: from the first change not yet sealed.
          waiting_position: trx.raw(`case when completed or ? then coalesce(waiting_position, ?) else waiting_position end`, [completes, position]),
          waiting_since: trx.raw(`case when completed or ? then coalesce(waiting_since, ?::timestamptz) else waiting_since end`, [completes, stored.metadata.occurred_at]),
          last_position: position,
        });
      return;
    }
    const event = parseEvent(anchorEvents, stored);
    if (!event) return;
    const batchId = streamInstance('anchor', stored.stream);
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
          await trx('anchor_items').insert({ verification_id: record.verification_id, batch_id: batchId, sequence: Number(batchId), item: JSON.stringify(item) }).onConflict(['verification_id', 'batch_id']).ignore();
          // The heads this record seals; nothing waits any more unless a stream grew while the batch was sealed.
          const sealed = JSON.stringify(Object.fromEntries(sealedHeads(record).map((h) => [h.stream, { revision: h.revision, event_hash: h.event_hash }])));
          await unapplied(trx, 'anchor_records', { verification_id: record.verification_id }, position).update({
            sealed_heads: sealed,
            waiting_position: trx.raw('case when heads = ?::jsonb then null else waiting_position end', [sealed]),
            waiting_since: trx.raw('case when heads = ?::jsonb then null else waiting_since end', [sealed]),
            last_position: position,
          });
        }
        return;
      }
      case 'AnchorBatchTimestamped':
        await unapplied(trx, 'anchor_batches', { batch_id: batchId }, position).update({
          timestamp: JSON.stringify({ authority: event.data.authority, token: event.data.token }),
          last_position: position,
        });
        return;
      case 'AnchorTimestampFailed':
        await unapplied(trx, 'anchor_batches', { batch_id: batchId }, position).update({ timestamp_failure: event.data.reason, last_position: position });
        return;
    }
  },
};
