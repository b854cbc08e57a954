import type { Knex } from 'knex';

/** A row of the stream_owners read model (projections/audit/projection.ts owns the table): which account owns a stream. */
export interface StreamOwnerRow {
  stream: string;
  account_id: string | null;
  event_count: number;
  first_recorded_at: Date | string;
  last_recorded_at: Date | string;
  last_position: string;
}

export const streamOwnersTable = (knex: Knex) => knex<StreamOwnerRow>('stream_owners');

export const findStreamOwner = (knex: Knex, stream: string): Promise<StreamOwnerRow | undefined> => streamOwnersTable(knex).where({ stream }).first();

/** One page of an account's streams, most recently changed first, and how many it has in all. */
export async function pageStreamsOfAccount(knex: Knex, accountId: string, page: { offset: number; size: number }): Promise<{ rows: StreamOwnerRow[]; total: number }> {
  const base = streamOwnersTable(knex).where({ account_id: accountId });
  const counted = await base.clone().count<{ count: string | number }[]>('* as count');
  const rows = await base
    .clone()
    .orderBy([{ column: 'last_recorded_at', order: 'desc' }, { column: 'stream' }])
    .offset(page.offset)
    .limit(page.size);
  return { rows, total: Number(counted[0]?.count ?? 0) };
}
