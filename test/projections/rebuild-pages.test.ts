import crypto from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/adapters/db/database.js';
import { ProjectionRunner } from '../../src/adapters/db/projection-runner.js';
import { migrateEventStore, PostgresEventStore } from '../../src/adapters/eventstore/postgres.js';
import { allProjectors } from '../../src/modules.js';
import { databaseTargets } from '../support/databases.js';
import { probeEvent } from '../support/probe-event.js';

/**
 * A rebuild reads the log once for all read models, in large pages (issue 38): it read the whole
 * log again for each of the projectors, 250 events at a time, which was a third of a 100,000
 * verifications' rebuild on PGlite.
 */
const event = (n: number) => probeEvent('RebuildPageProbe', { n });

for (const target of databaseTargets) {
  describe(`rebuild pages on ${target.name}`, () => {
    let db: Database;
    beforeAll(async () => {
      db = await target.open();
      await migrateEventStore(db.knex);
    });
    afterAll(async () => db.close());

    it('reads each page of the log once for every projector, and leaves every read model at the head', async () => {
      const store = new PostgresEventStore(db.knex);
      const streams = Array.from({ length: 300 }, () => ({ stream: `probe-${crypto.randomUUID()}`, events: [event(0), event(1)], expectedRevision: 'no_stream' as const }));
      await store.appendStreams(streams);
      const runner = new ProjectionRunner(db.knex, store, allProjectors);
      await runner.migrate();
      const reads: number[] = [];
      const readAll = store.readAll.bind(store);
      store.readAll = async (options) => (reads.push(options.limit), readAll(options));
      await runner.rebuild();
      // 600 events: one page, read once (not once per projector).
      expect(reads).toEqual([2_000]);
      const head = String(await store.headPosition());
      expect(runner.status().map((s) => [s.name, s.position, s.state])).toEqual(allProjectors.map((p) => [p.name, head, 'stopped']));
      expect(Number((await db.knex('stream_owners').count('* as n'))[0]!.n)).toBe(300);
    });

    it('answers from the old read models while it rebuilds, and swaps the new ones in with their checkpoints', async () => {
      const store = new PostgresEventStore(db.knex);
      const runner = new ProjectionRunner(db.knex, store, allProjectors);
      await runner.migrate();
      await runner.rebuild();
      const streams = Array.from({ length: 300 }, () => ({ stream: `probe-${crypto.randomUUID()}`, events: [event(0)], expectedRevision: 'no_stream' as const }));
      await store.appendStreams(streams);
      const owners = async () => Number((await db.knex('stream_owners').count('* as n'))[0]!.n);
      // What a reader sees each time the rebuild reads the log: the read model as it was.
      const seen: number[] = [];
      const readAll = store.readAll.bind(store);
      store.readAll = async (options) => (seen.push(await owners()), readAll(options));
      await runner.rebuild();
      expect(seen).toEqual([300]);
      expect(await owners()).toBe(600);
      const head = String(await store.headPosition());
      expect((await db.knex('projection_checkpoints').select('position')).map((row) => String(row.position))).toEqual(allProjectors.map(() => head));
    });

    it('leaves every read model as it was when a projector fails its rebuild', async () => {
      const store = new PostgresEventStore(db.knex);
      const failing = { ...allProjectors[0]!, applyAll: undefined, apply: async () => Promise.reject(new Error('probe failure')) };
      const runner = new ProjectionRunner(db.knex, store, [failing, ...allProjectors.slice(1)]);
      await runner.migrate();
      const before = await db.knex('stream_owners').count('* as n');
      const checkpoints = await db.knex('projection_checkpoints').orderBy('name');
      await expect(runner.rebuild()).rejects.toThrow('probe failure');
      expect(await db.knex('stream_owners').count('* as n')).toEqual(before);
      expect(await db.knex('projection_checkpoints').orderBy('name')).toEqual(checkpoints);
      expect(runner.status().every((s) => s.state !== 'failed')).toBe(true);
    });
  });
}
