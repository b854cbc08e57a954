import { parseEvent } from '../../src/core/events.js';
import { inclusionProof } from '../../src/core/merkle.js';
import { type Projector, unapplied } from '../../src/core/projector.js';
import { streamInstance } from '../../src/core/streams.js';
import { anchorEvents } from '../../src/features/anchors/events.js';
import { verificationEvents } from '../../src/features/verifications/events.js';

/**
 * The anchoring of completed verifications (docs/audit.md, "Anchors"):
 * - `anchor_records`, one row per verification: its file digests from the moment it is queued,
 *   its record (the stream, revision and link hash of its VerificationCompleted event: the
 *   queue of records waiting for a batch, in completion order), then the batch it was sealed
 *   in with its `anchored_in` item (leaf index, inclusion proof, signature: all computed here
 *   from the batch's event, so a rebuild gives the same items). A verification deleted before
 *   it is anchored leaves the queue; one anchored keeps its row (the batch still holds it).
 * - `anchor_batches`, one row per sealed batch: its number, root, size and timestamp outcome
 *   (a token's `{ authority, token }`, or why there is none).
 */
export const anchorsProjector: Projector = {
  name: 'anchors',
  version: 1,
  tables: ['anchor_records', 'anchor_batches'],
  async migrate(knex) {
    await knex.raw(`
      create table if not exists anchor_records (
        verification_id uuid primary key,
        image_sha256 text not null,
        raw_sha256 text,
        stream text,
        revision integer,
        event_hash text,
        completed_at timestamptz,
        completed_position numeric(20, 0),
        batch_id text,
        item jsonb,
        last_position numeric(20, 0) not null
      )`);
    await knex.raw(`create index if not exists anchor_records_waiting on anchor_records (completed_position) where batch_id is null and completed_position is not null`);
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
    const verification = parseEvent(verificationEvents, stored);
    if (verification) {
      const verificationId = streamInstance('verification', stored.stream);
      const row = () => unapplied(trx, 'anchor_records', { verification_id: verificationId }, position);
      switch (verification.type) {
        case 'VerificationQueued':
          await trx('anchor_records')
            .insert({ verification_id: verificationId, image_sha256: verification.data.image.sha256, raw_sha256: verification.data.raw?.sha256 ?? null, last_position: position })
            .onConflict('verification_id')
            .ignore();
          return;
        case 'VerificationCompleted':
          // Its record: the completion event is the verification's last event when it completes.
          await row().whereNull('batch_id').update({
            stream: stored.stream,
            revision: stored.revision,
            event_hash: stored.hash,
            completed_at: verification.data.completed_at,
            completed_position: position,
            last_position: position,
          });
          return;
        case 'VerificationDeleted':
          await row().whereNull('batch_id').delete();
          return;
        default:
          return;
      }
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
          // Upserted: the row may be gone (its verification deleted while the batch was sealed) or never seen.
          await trx('anchor_records')
            .insert({
              verification_id: record.verification_id,
              image_sha256: record.image_sha256,
              raw_sha256: record.raw_sha256,
              stream: record.stream,
              revision: record.revision,
              event_hash: record.event_hash,
              batch_id: batchId,
              item: JSON.stringify(item),
              last_position: position,
            })
            .onConflict('verification_id')
            .merge(['batch_id', 'item', 'last_position']);
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
