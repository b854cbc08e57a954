import type { Knex } from 'knex';
import type { StoredEvent } from '../../src/core/es/event-store.js';
import type { Projector } from '../../src/core/es/projector.js';

/**
 * The compliance export's read model: one row per event of the log, the processing evidence only
 * (who, where, when, which request, which link of its stream's hash chain), never its data, under
 * the account it was processed for. That account is the event's own `metadata.account_id`; an
 * event that names none (work the service did for a stream) belongs to its stream's account: the
 * first account an earlier event of the stream named (compliance_stream_accounts). An event of a
 * stream no account ever named is nobody's processing evidence and is left out.
 *
 * Attribution depends only on earlier events, so a rebuild, whatever its pages, gives the same rows.
 */
export const complianceProjector: Projector = {
  name: 'compliance',
  version: 1,
  tables: ['compliance_events', 'compliance_stream_accounts'],
  async migrate(knex) {
    await knex.raw(`
      create table if not exists compliance_events (
        position numeric(20, 0) primary key,
        event_id uuid not null,
        account_id uuid not null,
        stream text not null,
        revision integer not null,
        type text not null,
        processing_region text not null,
        actor_type text not null,
        actor_id text not null,
        correlation_id text not null,
        causation_id text not null,
        occurred_at timestamptz not null,
        recorded_at timestamptz not null,
        hash text not null
      )`);
    // An export reads one account's period in (occurred_at, position) order, page by page: the hashed time (issue 35).
    await knex.raw('drop index if exists compliance_events_period');
    await knex.raw('create index if not exists compliance_events_occurred on compliance_events (account_id, occurred_at, position)');
    // Chain heads: a stream's last event before the period's end.
    await knex.raw('create index if not exists compliance_events_stream on compliance_events (account_id, stream, revision)');
    await knex.raw(`
      create table if not exists compliance_stream_accounts (
        stream text primary key,
        account_id uuid not null
      )`);
  },
  apply: (trx, event) => applyPage(trx, [event]),
  applyAll: applyPage,
};

async function applyPage(trx: Knex.Transaction, events: readonly StoredEvent[]): Promise<void> {
  // The accounts of the page's streams named before this page (every stream: the first naming wins, whatever the pages).
  const known = new Map<string, string>();
  const streams = [...new Set(events.map((e) => e.stream))];
  for (let i = 0; i < streams.length; i += 500) {
    const rows = await trx('compliance_stream_accounts').whereIn('stream', streams.slice(i, i + 500)).select<{ stream: string; account_id: string }[]>('stream', 'account_id');
    for (const row of rows) known.set(row.stream, row.account_id);
  }
  const firstNamed = new Map<string, string>();
  const rows: Record<string, unknown>[] = [];
  for (const event of events) {
    const named = event.metadata.account_id;
    if (named && !known.has(event.stream)) {
      known.set(event.stream, named);
      firstNamed.set(event.stream, named);
    }
    const account = named ?? known.get(event.stream);
    if (!account) continue;
    rows.push({
      position: event.position.toString(),
      event_id: event.id,
      account_id: account,
      stream: event.stream,
      revision: event.revision,
      type: event.type,
      processing_region: event.metadata.processing_region,
      actor_type: event.metadata.actor.type,
      actor_id: event.metadata.actor.id,
      correlation_id: event.metadata.correlation_id,
      causation_id: event.metadata.causation_id,
      occurred_at: event.metadata.occurred_at,
      recorded_at: event.recorded_at,
      hash: event.hash,
    });
  }
  if (firstNamed.size) {
    await trx('compliance_stream_accounts')
      .insert([...firstNamed].map(([stream, account_id]) => ({ stream, account_id })))
      .onConflict('stream')
      .ignore();
  }
  // Bounded statements: a rebuild's page may be large.
  for (let i = 0; i < rows.length; i += 500) await trx('compliance_events').insert(rows.slice(i, i + 500)).onConflict('position').ignore();
}
