import type { Knex } from 'knex';

/** A row of anchor_records (projection.ts owns the table). */
export interface AnchorRecordRow {
  verification_id: string;
  image_sha256: string;
  raw_sha256: string | null;
  /** Each sealed stream's head: `{ [stream]: { revision, event_hash } }`. */
  heads: Record<string, { revision: number; event_hash: string }> | string;
  waiting_position: string | null;
  waiting_since: Date | string | null;
}

/** Verifications whose streams changed since their last record (or never sealed, completed), oldest change first. */
export const waitingRecords = (knex: Knex, limit: number): Promise<AnchorRecordRow[]> =>
  knex<AnchorRecordRow>('anchor_records').whereNotNull('waiting_position').orderBy('waiting_position').limit(limit);

/** The number of the last batch the read model shows sealed (0: none yet). */
export async function lastSealedBatch(knex: Knex): Promise<number> {
  const row = await knex('anchor_batches').max({ sequence: 'sequence' }).first();
  return Number(row?.sequence ?? 0);
}

/**
 * The Verification's `anchored_in` (contract 2 of issue 25: docs/audit.md "Anchors"), oldest
 * batch first, as one JSON value: each record as sealed (the later ones seal the events that came
 * after completion), with its batch's timestamp (null when none was granted). [] until the
 * verification is anchored.
 */
export const anchoredInColumn = (knex: Knex, idColumn: string): Knex.Raw =>
  knex.raw(
    `select coalesce(json_agg(r.item || jsonb_build_object('timestamp', b.timestamp) order by b.sequence), '[]'::json)
     from anchor_items r join anchor_batches b on b.batch_id = r.batch_id
     where r.verification_id = ??`,
    [idColumn],
  );

/** What the report page says of a verification's anchoring: its batch, when null. */
export interface AnchorSummary {
  batch_id: string;
  sealed_at: string;
  root: string;
  tree_size: number;
  timestamped: boolean;
  timestamp_failure: string | null;
}

export async function anchorSummary(knex: Knex, verificationId: string): Promise<AnchorSummary | null> {
  const row = await knex('anchor_items as r')
    .join('anchor_batches as b', 'b.batch_id', 'r.batch_id')
    .where('r.verification_id', verificationId)
    .orderBy('b.sequence')
    .first('b.batch_id', 'b.sealed_at', 'b.root', 'b.tree_size', 'b.timestamp', 'b.timestamp_failure');
  if (!row) return null;
  return {
    batch_id: row.batch_id,
    sealed_at: new Date(row.sealed_at).toISOString(),
    root: row.root,
    tree_size: Number(row.tree_size),
    timestamped: row.timestamp !== null,
    timestamp_failure: row.timestamp_failure,
  };
}
