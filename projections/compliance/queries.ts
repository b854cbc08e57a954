import type { Knex } from 'knex';

/** A row of the compliance_events read model (projection.ts owns the table). */
export interface ComplianceEventRow {
  position: string;
  event_id: string;
  account_id: string;
  stream: string;
  revision: number;
  type: string;
  processing_region: string;
  actor_type: string;
  actor_id: string;
  correlation_id: string;
  causation_id: string;
  occurred_at: Date | string;
  recorded_at: Date | string;
  hash: string;
}

/**
 * A period of the log: events that occurred at or after `from` and before `to`, by their
 * `metadata.occurred_at`, the time the event's hash covers (issue 35: `recorded_at` is the
 * store's own clock, in no hash, so a period chosen by it could not be checked against the events).
 */
export interface Period {
  from: Date;
  to: Date;
}

/** Where a page ends: the next page starts after it, in (occurred_at, position) order. */
export interface Cursor {
  occurred_at: string;
  position: string;
}

const inPeriod = (knex: Knex, accountId: string, period: Period) =>
  knex<ComplianceEventRow>('compliance_events').where({ account_id: accountId }).andWhere('occurred_at', '>=', period.from.toISOString()).andWhere('occurred_at', '<', period.to.toISOString());

/** One page of an account's events of a period, after `cursor`, in the order they occurred (the log's order among equal times). */
export async function pageOfPeriod(knex: Knex, accountId: string, period: Period, after: Cursor | null, size: number): Promise<ComplianceEventRow[]> {
  const query = inPeriod(knex, accountId, period);
  if (after) {
    // Keyset paging on the index (account_id, occurred_at, position): every page is one index range.
    query.andWhere((q) => {
      q.where('occurred_at', '>', after.occurred_at).orWhere((same) => {
        same.where('occurred_at', '=', after.occurred_at).andWhere('position', '>', after.position);
      });
    });
  }
  const rows = await query.orderBy([{ column: 'occurred_at' }, { column: 'position' }]).limit(size).select('*');
  return rows.map((row) => ({ ...row, position: String(row.position) }));
}

/** How many events of the period there are per `column`. */
export async function countsBy(knex: Knex, accountId: string, period: Period, column: 'processing_region' | 'type'): Promise<Record<string, number>> {
  const rows = await inPeriod(knex, accountId, period).groupBy(column).orderBy(column).select<{ key: string; count: string | number }[]>(`${column} as key`, knex.raw('count(*) as count'));
  return Object.fromEntries(rows.map((row) => [row.key, Number(row.count)]));
}

/** The period's first or last event, in the order the log recorded them. */
export async function edgeOfPeriod(knex: Knex, accountId: string, period: Period, edge: 'first' | 'last'): Promise<ComplianceEventRow | undefined> {
  const order = edge === 'first' ? 'asc' : 'desc';
  const row = await inPeriod(knex, accountId, period).orderBy([{ column: 'occurred_at', order }, { column: 'position', order }]).first();
  return row && { ...row, position: String(row.position) };
}

/**
 * The head of each of the account's streams that has events in the period: its last event of the
 * account that occurred before the period's end. Only the account's rows are read, so another
 * account's event never shows as a head.
 */
export async function chainHeads(knex: Knex, accountId: string, period: Period): Promise<Pick<ComplianceEventRow, 'stream' | 'revision' | 'hash' | 'recorded_at'>[]> {
  const active = inPeriod(knex, accountId, period).distinct('stream');
  return knex('compliance_events')
    .distinctOn('stream')
    .where({ account_id: accountId })
    .andWhere('occurred_at', '<', period.to.toISOString())
    .whereIn('stream', active)
    .orderBy([{ column: 'stream' }, { column: 'revision', order: 'desc' }])
    .select('stream', 'revision', 'hash', 'recorded_at');
}
