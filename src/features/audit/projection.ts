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
    const position = event.position.toString();
    const owner = transferredOwner(event.data) ?? event.metadata.account_id;
    const existing = await trx('stream_owners').where({ stream: event.stream }).first();
    if (!existing) {
      await trx('stream_owners').insert({
        stream: event.stream,
        account_id: owner,
        event_count: 1,
        first_recorded_at: event.recorded_at,
        last_recorded_at: event.recorded_at,
        last_position: position,
      });
      return;
    }
    if (BigInt(existing.last_position) >= event.position) return;
    await trx('stream_owners')
      .where({ stream: event.stream })
      .update({
        account_id: transferredOwner(event.data) ?? existing.account_id ?? owner,
        event_count: existing.event_count + 1,
        last_recorded_at: event.recorded_at,
        last_position: position,
      });
  },
};

/** Events that move a stream to another account carry `new_owner_account_id`. */
function transferredOwner(data: Record<string, unknown>): string | undefined {
  return typeof data.new_owner_account_id === 'string' ? data.new_owner_account_id : undefined;
}
