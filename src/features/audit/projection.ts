import type { Projector } from '../../core/projector.js';

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
  async apply(trx, event) {
    // One upsert per event (it runs for every event in the log): a new stream gets its row; a
    // known one counts the event unless it already reflects it (replays change nothing).
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
  },
};

/** Events that move a stream to another account carry `new_owner_account_id`. */
function transferredOwner(data: Record<string, unknown>): string | undefined {
  return typeof data.new_owner_account_id === 'string' ? data.new_owner_account_id : undefined;
}
