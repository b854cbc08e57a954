import type { Knex } from 'knex';
import type { StoredEvent } from '../../src/core/es/event-store.js';
import type { Projector } from '../../src/core/es/projector.js';

/**
 * Which account owns each stream, for the audit history. The owner is the account of the
 * stream's first event that names one; events that transfer ownership (claims) update it.
 */
export const streamOwnersProjector: Projector = {
  name: 'stream_owners',
  version: 1,
  tables: ['stream_owners'],
  async migrate(knex) {
    await knex.raw(`
      create table if not exists stream_owners (
        stream text primary key,
        account_id uuid,
        event_count integer not null,
        first_recorded_at timestamptz not null,
        last_recorded_at timestamptz not null,
        last_position numeric(20, 0) not null
      )`);
    await knex.raw('create index if not exists stream_owners_account on stream_owners (account_id, last_recorded_at)');
  },
  apply: applyOne,
  async applyAll(trx, events) {
    // One upsert for the page: a row per stream, counting its events. A stream whose events move
    // it to another account (claims, rare) keeps the per-event path, which orders the transfers.
    const byStream = new Map<string, StoredEvent[]>();
    for (const event of events) {
      const group = byStream.get(event.stream);
      if (group) group.push(event);
      else byStream.set(event.stream, [event]);
    }
    const rows: unknown[][] = [];
    for (const [stream, group] of byStream) {
      if (group.some((event) => transferredOwner(event.data))) {
        for (const event of group) await applyOne(trx, event);
        continue;
      }
      const first = group[0]!;
      const last = group.at(-1)!;
      // The owner is the first event's account that names one, unless the row has one already.
      const owner = group.find((event) => event.metadata.account_id)?.metadata.account_id ?? null;
      rows.push([stream, owner, group.length, first.recorded_at, last.recorded_at, last.position.toString()]);
    }
    if (rows.length === 0) return;
    await trx.raw(
      `insert into stream_owners as o (stream, account_id, event_count, first_recorded_at, last_recorded_at, last_position)
       values ${rows.map(() => '(?, ?::uuid, ?::integer, ?::timestamptz, ?::timestamptz, ?::numeric)').join(', ')}
       on conflict (stream) do update set
         account_id = coalesce(o.account_id, excluded.account_id),
         event_count = o.event_count + excluded.event_count,
         last_recorded_at = excluded.last_recorded_at,
         last_position = excluded.last_position
       where o.last_position < excluded.last_position`,
      rows.flat() as Knex.RawBinding[],
    );
  },
};

/** One event: a new stream gets its row; a known one counts the event unless it already reflects it (replays change nothing). */
async function applyOne(trx: Knex.Transaction, event: StoredEvent): Promise<void> {
  const transferred = transferredOwner(event.data) ?? null;
  await trx.raw(
    `insert into stream_owners as o (stream, account_id, event_count, first_recorded_at, last_recorded_at, last_position)
     values (?, ?, 1, ?, ?, ?)
     on conflict (stream) do update set
       account_id = coalesce(?::uuid, o.account_id, excluded.account_id),
       event_count = o.event_count + 1,
       last_recorded_at = excluded.last_recorded_at,
       last_position = excluded.last_position
     where o.last_position < excluded.last_position`,
    [event.stream, transferred ?? event.metadata.account_id, event.recorded_at, event.recorded_at, event.position.toString(), transferred],
  );
}

/** Events that move a stream to another account carry `new_owner_account_id`. */
function transferredOwner(data: Record<string, unknown>): string | undefined {
  return typeof data.new_owner_account_id === 'string' ? data.new_owner_account_id : undefined;
}
