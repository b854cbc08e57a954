import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../../src/adapters/db/database.js';
import { migrateEventStore, PostgresEventStore } from '../../src/adapters/eventstore/postgres.js';
import type { StoredEvent } from '../../src/core/es/event-store.js';
import { contentHash, verifyChain } from '../../src/core/audit/hash-chain.js';
import { databaseTargets } from '../support/databases.js';

/**
 * A database written before the hash chain (issue 25) opens: the migration chains its events in
 * revision order per stream, makes the hashes required, and new appends continue each chain.
 */

/** The events table and append function as every version before the chain created them. */
const OLD_SCHEMA = [
  `create table events (
     position bigint primary key,
     id uuid not null unique,
     stream text not null,
     revision integer not null,
     type text not null,
     version integer not null,
     data jsonb not null,
     metadata jsonb not null,
     recorded_at timestamptz not null default now(),
     unique (stream, revision)
   )`,
  `create or replace function pv_append_events(p_stream text, p_expected integer, p_check boolean, p_events jsonb)
   returns setof events language plpgsql as $$
   declare
     current_revision integer;
     last_position bigint;
   begin
     perform pg_advisory_xact_lock(7316041);
     select max(revision) into current_revision from events where stream = p_stream;
     select coalesce(max(position), 0) into last_position from events;
     return query
       insert into events (position, id, stream, revision, type, version, data, metadata)
       select last_position + e.n, (e.event->>'id')::uuid, p_stream, coalesce(current_revision, -1) + e.n::integer,
              e.event->>'type', (e.event->>'version')::integer, e.event->'data', e.event->'metadata'
       from jsonb_array_elements(p_events) with ordinality as e(event, n)
       returning *;
   end $$`,
];

const STREAMS = 7;
/** More than one page of the backfill (500), with streams interleaved across pages. */
const EVENTS = 1_234;

/** Events of STREAMS interleaved streams, written as the old version wrote them: its function for the first, rows for the bulk. */
async function writeOldDatabase(db: Database): Promise<void> {
  for (const statement of OLD_SCHEMA) await db.knex.raw(statement);
  const metadata = { account_id: null, actor: { type: 'system', id: 'legacy' }, causation_id: 'c', correlation_id: 'r', processing_region: 'eu-central-1', occurred_at: '2025-01-01T00:00:00.000Z' };
  await db.knex.raw('select * from pv_append_events(?, null, false, ?::jsonb)', [
    'legacy-first',
    JSON.stringify([{ id: crypto.randomUUID(), type: 'Old', version: 1, data: { text: 'é ☃', list: [1, { b: 2, a: 1 }] }, metadata }]),
  ]);
  await db.knex.raw(
    `insert into events (position, id, stream, revision, type, version, data, metadata)
     select n + 2, gen_random_uuid(), 'legacy-' || (n % ${STREAMS}), n / ${STREAMS}, 'Old', 1,
            jsonb_build_object('n', n, 'half', n / 2.0, 'text', 'ü'), ?::jsonb
     from generate_series(0, ${EVENTS - 1}) as n`,
    [JSON.stringify(metadata)],
  );
}

async function chainsOf(db: Database): Promise<Map<string, StoredEvent[]>> {
  const store = new PostgresEventStore(db.knex);
  const streams = ['legacy-first', ...Array.from({ length: STREAMS }, (_, s) => `legacy-${s}`)];
  return new Map(await Promise.all(streams.map(async (stream) => [stream, await store.readStream(stream)] as const)));
}

async function expectMigrated(db: Database): Promise<void> {
  await migrateEventStore(db.knex);
  const chains = await chainsOf(db);
  let total = 0;
  for (const [stream, events] of chains) {
    expect(events.length, stream).toBeGreaterThan(0);
    expect(verifyChain(events), stream).toEqual({ ok: true, checked: events.length });
    for (const event of events) expect(event.content_hash).toBe(contentHash(event));
    total += events.length;
  }
  expect(total).toBe(EVENTS + 1);
  const { rows } = await db.knex.raw<{ rows: { column_name: string; is_nullable: string }[] }>(
    `select column_name, is_nullable from information_schema.columns where table_schema = current_schema() and table_name = 'events' and column_name in ('content_hash', 'hash', 'previous_hash') order by column_name`,
  );
  expect(rows.map((r) => [r.column_name, r.is_nullable])).toEqual([
    ['content_hash', 'NO'],
    ['hash', 'NO'],
    ['previous_hash', 'YES'],
  ]);

  // Migrating again changes nothing; an append continues the backfilled chain.
  await migrateEventStore(db.knex);
  expect(await chainsOf(db)).toEqual(chains);
  const store = new PostgresEventStore(db.knex);
  const last = chains.get('legacy-3')!.at(-1)!;
  await store.append('legacy-3', [{ id: crypto.randomUUID(), type: 'New', version: 1, data: { after: 'migration' }, metadata: last.metadata }], { expectedRevision: last.revision });
  const extended = await store.readStream('legacy-3');
  expect(extended.at(-1)!.previous_hash).toBe(last.hash);
  expect(verifyChain(extended)).toEqual({ ok: true, checked: extended.length });
}

describe('the hash chain migration', () => {
  const cleanup: (() => Promise<void>)[] = [];
  afterAll(async () => {
    for (const step of cleanup.reverse()) await step();
  });

  for (const target of databaseTargets) {
    it(`chains the events of an older database on ${target.name}`, async () => {
      const db = await target.open();
      cleanup.push(() => db.close());
      await writeOldDatabase(db);
      await expectMigrated(db);
    });
  }

  it('opens an embedded data directory an older version wrote', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'pv-chain-migration-'));
    cleanup.push(async () => fs.rmSync(dataDir, { recursive: true, force: true }));
    const old = await openDatabase({ dataDir });
    await writeOldDatabase(old);
    await old.close();
    const reopened = await openDatabase({ dataDir });
    cleanup.push(() => reopened.close());
    await expectMigrated(reopened);
  });
});
