import crypto from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/adapters/db/database.js';
import { migrateEventStore, PostgresEventStore } from '../../src/adapters/eventstore/postgres.js';
import { WrongExpectedRevisionError } from '../../src/core/errors.js';
import type { NewEvent, StoredEvent } from '../../src/core/es/event-store.js';
import { verifyChain } from '../../src/core/audit/hash-chain.js';
import { databaseTargets } from '../support/databases.js';

/** The PostgreSQL adapter's bulk append (the bench seeds through it, issue 38): the rows `append` would write, in one statement. */
function event(type: string, n: number): NewEvent {
  const id = crypto.randomUUID();
  return {
    id,
    type,
    version: 1,
    data: { n },
    metadata: { account_id: null, actor: { type: 'system', id: 'append-streams-test' }, causation_id: id, correlation_id: id, processing_region: 'eu-central-1', occurred_at: new Date().toISOString() },
  };
}

for (const target of databaseTargets) {
  describe(`appendStreams on ${target.name}`, () => {
    let db: Database;
    let store: PostgresEventStore;
    const run = crypto.randomBytes(4).toString('hex');
    const name = (s: string) => `bulk_${run}-${s}`;

    beforeAll(async () => {
      db = await target.open();
      await migrateEventStore(db.knex);
      store = new PostgresEventStore(db.knex);
    });
    afterAll(async () => db.close());

    it('appends several streams in order, each chained and numbered as one append each would', async () => {
      await store.append(name('a'), [event('A', 0)], { expectedRevision: 'no_stream' });
      const head = await store.headPosition();
      const seen: StoredEvent[][] = [];
      const off = store.onAppended((events) => seen.push([...events]));
      const appended = await store.appendStreams([
        { stream: name('a'), events: [event('A', 1), event('A', 2)], expectedRevision: 0 },
        { stream: name('b'), events: [event('B', 0), event('B', 1), event('B', 2)], expectedRevision: 'no_stream' },
        { stream: name('c'), events: [event('C', 0)], expectedRevision: 'any' },
      ]);
      off();
      expect(appended.map((e) => [e.stream, e.revision, e.position])).toEqual([
        [name('a'), 1, head + 1n],
        [name('a'), 2, head + 2n],
        [name('b'), 0, head + 3n],
        [name('b'), 1, head + 4n],
        [name('b'), 2, head + 5n],
        [name('c'), 0, head + 6n],
      ]);
      expect(seen).toEqual([appended]);
      for (const s of ['a', 'b', 'c']) {
        const events = await store.readStream(name(s));
        expect(verifyChain(events)).toEqual({ ok: true, checked: events.length });
      }
      expect((await store.readStream(name('a'))).map((e) => e.data.n)).toEqual([0, 1, 2]);
    });

    it('appends nothing when one stream is not at its expected revision, and names that stream', async () => {
      const head = await store.headPosition();
      const failure = await store
        .appendStreams([
          { stream: name('d'), events: [event('D', 0)], expectedRevision: 'no_stream' },
          { stream: name('b'), events: [event('B', 3)], expectedRevision: 0 },
        ])
        .catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(WrongExpectedRevisionError);
      expect(failure).toMatchObject({ stream: name('b'), expected: 0n, actual: 2n });
      expect(await store.headPosition()).toBe(head);
      expect(await store.readStream(name('d'))).toEqual([]);
    });
  });
}
