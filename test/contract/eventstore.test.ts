import crypto from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WrongExpectedRevisionError } from '../../src/core/errors.js';
import type { Database } from '../../src/adapters/db/database.js';
import { EventStoreDbEventStore } from '../../src/adapters/eventstore/eventstoredb.js';
import type { EventStore, StoredEvent } from '../../src/core/es/event-store.js';
import { migrateEventStore, PostgresEventStore } from '../../src/adapters/eventstore/postgres.js';
import { contentHash, verifyChain } from '../../src/core/audit/hash-chain.js';
import { databaseTargets } from '../support/databases.js';
import { EventStoreDbDouble } from '../support/eventstoredb-double.js';
import { probeEvent } from '../support/probe-event.js';
import { requires, type Gate } from '../support/requires.js';

/** One contract, every adapter that can run here. */
interface Adapter {
  name: string;
  /** Set when the adapter needs a server this run may not have. */
  gate?: Gate;
  open(): Promise<{ store: EventStore; close(): Promise<void> }>;
}

const adapters: Adapter[] = [
  ...databaseTargets.map((target) => ({
    name: `postgres adapter on ${target.name}`,
    async open() {
      const db: Database = await target.open();
      await migrateEventStore(db.knex);
      const store = new PostgresEventStore(db.knex);
      return { store, close: async () => (await store.close(), await db.close()) };
    },
  })),
  {
    name: 'eventstoredb adapter',
    gate: requires(
      { server: 'EventStoreDB server', variable: 'EVENTSTORE_URL', how: 'esdb://...; none can be installed on this machine, docker-compose.yml has one' },
      'the EventStore contract on EventStoreDB',
    ),
    async open() {
      const store = new EventStoreDbEventStore(process.env.EVENTSTORE_URL!);
      return { store, close: () => store.close() };
    },
  },
  {
    // No server can run here: the adapter's own logic (the hash chain above all) runs against an
    // in-process client with the server's semantics (test/support/eventstoredb-double.ts).
    name: 'eventstoredb adapter on an in-process client double',
    async open() {
      const store = new EventStoreDbEventStore(new EventStoreDbDouble().asClient());
      return { store, close: () => store.close() };
    },
  },
];

const event = (type: string, data: Record<string, unknown> = {}) => probeEvent(type, data);

for (const adapter of adapters) {
  (adapter.gate?.describe ?? describe)(`EventStore contract: ${adapter.name}`, () => {
    let store: EventStore;
    let close: () => Promise<void>;
    // Streams are unique per run so the suite also works against a shared server.
    const run = crypto.randomBytes(4).toString('hex');
    const streamName = (name: string) => `contract_${run}-${name}`;
    const ours = (events: StoredEvent[]) => events.filter((e) => e.stream.startsWith(`contract_${run}-`));

    beforeAll(async () => {
      ({ store, close } = await adapter.open());
    });
    afterAll(async () => close?.());

    it('appends to a new stream and reads it back in order', async () => {
      const stream = streamName('a');
      const first = await store.append(stream, [event('One', { n: 1 }), event('Two', { n: 2 })], { expectedRevision: 'no_stream' });
      expect(first.revision).toBe(1);
      const read = await store.readStream(stream);
      expect(read.map((e) => [e.type, e.revision, e.data.n])).toEqual([
        ['One', 0, 1],
        ['Two', 1, 2],
      ]);
      expect(read[0]!.metadata.processing_region).toBe('eu-central-1');
      expect(read[1]!.position).toBeGreaterThan(read[0]!.position);
    });

    it('reads a missing stream as empty', async () => {
      expect(await store.readStream(streamName('missing'))).toEqual([]);
    });

    it('rejects a wrong expected revision with a typed error and writes nothing', async () => {
      const stream = streamName('b');
      await store.append(stream, [event('One')], { expectedRevision: 'no_stream' });
      await expect(store.append(stream, [event('Two')], { expectedRevision: 5 })).rejects.toBeInstanceOf(WrongExpectedRevisionError);
      await expect(store.append(stream, [event('Two')], { expectedRevision: 'no_stream' })).rejects.toBeInstanceOf(WrongExpectedRevisionError);
      expect((await store.readStream(stream)).map((e) => e.type)).toEqual(['One']);
      await store.append(stream, [event('Two')], { expectedRevision: 0 });
      expect((await store.readStream(stream)).map((e) => e.type)).toEqual(['One', 'Two']);
    });

    it('says which revision it found when the expected one is wrong', async () => {
      const stream = streamName('found');
      await store.append(stream, [event('One'), event('Two')], { expectedRevision: 'no_stream' });
      const wrong = await store.append(stream, [event('Three')], { expectedRevision: 0 }).catch((error: unknown) => error);
      expect(wrong).toMatchObject({ expected: 0n, actual: 1n });
      const missing = await store.append(streamName('nothing-yet'), [event('One')], { expectedRevision: 3 }).catch((error: unknown) => error);
      expect(missing).toMatchObject({ expected: 3n, actual: 'no_stream' });
    });

    it('tells its listeners of each append once it is stored, with the events as a read returns them', async () => {
      const heard: StoredEvent[][] = [];
      const unsubscribe = store.onAppended((events) => heard.push([...events]));
      const stream = streamName('heard');
      await store.append(stream, [event('One', { n: 1, nested: { b: [1, 'two'], a: null } }), event('Two', { n: 2 })], { expectedRevision: 'no_stream' });
      await store.append(stream, [event('Three')], { expectedRevision: 1 });
      await store.append(stream, [event('Four')], { expectedRevision: 0 }).catch(() => undefined); // refused: nothing to hear
      unsubscribe();
      await store.append(stream, [event('Five')], { expectedRevision: 2 });
      expect(heard).toHaveLength(2);
      if (store.contiguousPositions) {
        // Exactly what readers get (the read models take their pages from these).
        const read = await store.readStream(stream);
        expect(heard.flat()).toEqual(read.slice(0, 3));
      } else {
        for (const events of heard) expect(events).toEqual([]); // the adapter cannot know them without reading
      }
    });

    it('lets exactly one of several racing writers win the same revision', async () => {
      const stream = streamName('race');
      await store.append(stream, [event('Start')], { expectedRevision: 'no_stream' });
      const outcomes = await Promise.allSettled(Array.from({ length: 8 }, () => store.append(stream, [event('Racer')], { expectedRevision: 0 })));
      expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
      for (const o of outcomes) if (o.status === 'rejected') expect(o.reason).toBeInstanceOf(WrongExpectedRevisionError);
      expect(await store.readStream(stream)).toHaveLength(2);
    });

    it('reads all streams in one global order', async () => {
      const before = await store.headPosition();
      await store.append(streamName('g1'), [event('X')], { expectedRevision: 'no_stream' });
      await store.append(streamName('g2'), [event('Y')], { expectedRevision: 'no_stream' });
      await store.append(streamName('g1'), [event('Z')], { expectedRevision: 0 });
      const all = ours(await store.readAll({ after: before, limit: 1000 }));
      expect(all.map((e) => e.type)).toEqual(['X', 'Y', 'Z']);
      const positions = all.map((e) => e.position);
      expect([...positions].sort((a, b) => (a < b ? -1 : 1))).toEqual(positions);
      const afterFirst = ours(await store.readAll({ after: all[0]!.position, limit: 1000 }));
      expect(afterFirst.map((e) => e.type)).toEqual(['Y', 'Z']);
    });

    it('never lets a concurrent reader skip an event while many writers append', async () => {
      const writers = 16;
      const appendsPerWriter = 20;
      const total = writers * appendsPerWriter;
      const start = await store.headPosition();
      const seen = new Set<string>();
      const positions: bigint[] = [];
      let writing = true;

      // The reader tails the log exactly like a projector: it only ever moves its cursor forward.
      const reader = (async () => {
        let cursor = start;
        while (writing || seen.size < total) {
          const page = await store.readAll({ after: cursor, limit: 100 });
          for (const e of page) {
            cursor = e.position;
            if (!e.stream.startsWith(`contract_${run}-w`)) continue;
            seen.add(e.id);
            positions.push(e.position);
          }
          if (page.length === 0) {
            if (!writing && seen.size < total) break; // drained but incomplete: a skipped event
            await new Promise((r) => setTimeout(r, 2));
          }
        }
      })();

      await Promise.all(
        Array.from({ length: writers }, async (_, w) => {
          for (let i = 0; i < appendsPerWriter; i++) {
            await store.append(streamName(`w${w}`), [event('W', { w, i })], { expectedRevision: i === 0 ? 'no_stream' : i - 1 });
          }
        }),
      );
      writing = false;
      await reader;

      expect(seen.size).toBe(total);
      if (store.contiguousPositions) {
        const all = await store.readAll({ after: start, limit: total + 1000 });
        all.forEach((e, i) => expect(e.position).toBe(start + BigInt(i + 1)));
      }
    });

    describe('hash chain', () => {
      const chainOf = async (stream: string) => verifyChain(await store.readStream(stream));

      it('links every append: content hash of the event given, previous hash of the event before, null at revision 0', async () => {
        const stream = streamName('chain');
        const given = [event('One', { n: 1, nested: { b: [1, 'two'], a: null }, text: 'é ☃' }), event('Two', { n: 2 })];
        await store.append(stream, given, { expectedRevision: 'no_stream' });
        const third = event('Three', { skipped: undefined, when: '2026-01-01T00:00:00.000Z' });
        await store.append(stream, [third], { expectedRevision: 1 });
        const read = await store.readStream(stream);
        expect(read.map((e) => e.content_hash)).toEqual([...given, third].map((e) => contentHash(e)));
        expect(read[0]!.previous_hash).toBeNull();
        expect(read[1]!.previous_hash).toBe(read[0]!.hash);
        expect(read[2]!.previous_hash).toBe(read[1]!.hash);
        for (const e of read) expect(e.hash).toMatch(/^[0-9a-f]{64}$/);
        expect(new Set(read.map((e) => e.hash)).size).toBe(3);
        expect(verifyChain(read)).toEqual({ ok: true, checked: 3 });
        // What the chain is checked against is what a read returns: a changed field breaks it.
        expect(verifyChain(read.map((e, i) => (i === 1 ? { ...e, data: { n: 3 } } : e)))).toMatchObject({ ok: false, revision: 1 });
      });

      it("chains 'any' appends, to a new stream and to an existing one", async () => {
        const stream = streamName('any');
        await store.append(stream, [event('One')], { expectedRevision: 'any' });
        await store.append(stream, [event('Two'), event('Three')], { expectedRevision: 'any' });
        expect(await chainOf(stream)).toEqual({ ok: true, checked: 3 });
      });

      it("chains concurrent 'any' appends to one stream in the order they were stored", async () => {
        const stream = streamName('any-race');
        await Promise.all(Array.from({ length: 12 }, (_, i) => store.append(stream, [event('Racer', { i }), event('Racer', { i, second: true })], { expectedRevision: 'any' })));
        const read = await store.readStream(stream);
        expect(read).toHaveLength(24);
        expect(verifyChain(read)).toEqual({ ok: true, checked: 24 });
      });

      it('keeps one chain when racing writers expect the same revision: the winner links to the event it expected', async () => {
        const stream = streamName('chain-race');
        await store.append(stream, [event('Start')], { expectedRevision: 'no_stream' });
        const outcomes = await Promise.allSettled(Array.from({ length: 8 }, () => store.append(stream, [event('Racer')], { expectedRevision: 0 })));
        expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
        expect(await chainOf(stream)).toEqual({ ok: true, checked: 2 });
      });

      it('tells its listeners the hashes a read returns', async () => {
        const heard: StoredEvent[] = [];
        const unsubscribe = store.onAppended((events) => heard.push(...events));
        const stream = streamName('heard-hashes');
        await store.append(stream, [event('One'), event('Two')], { expectedRevision: 'no_stream' });
        await store.append(stream, [event('Three')], { expectedRevision: 'any' });
        unsubscribe();
        const read = await store.readStream(stream);
        if (!store.contiguousPositions) return expect(heard).toEqual([]); // this adapter hands readers nothing to compare
        const pick = (e: StoredEvent) => [e.revision, e.content_hash, e.hash, e.previous_hash];
        expect(heard.map(pick)).toEqual(read.map(pick));
      });

      it('leaves every stream a valid chain after a mixed concurrent workload, in the stream and in the global log', async () => {
        const before = await store.headPosition();
        const streams = Array.from({ length: 6 }, (_, s) => streamName(`mixed${s}`));
        await Promise.all(
          streams.map(async (stream, s) => {
            for (let i = 0; i < 8; i++) {
              const batch = Array.from({ length: 1 + ((i + s) % 3) }, (_, k) => event('Mixed', { s, i, k }));
              if (i === 0) await store.append(stream, batch, { expectedRevision: 'no_stream' });
              else if (i % 2 === 0) await store.append(stream, batch, { expectedRevision: 'any' });
              else await store.append(stream, batch, { expectedRevision: (await store.readStream(stream)).at(-1)!.revision });
            }
          }),
        );
        // Other writers racing the same streams with 'any'.
        await Promise.all(streams.flatMap((stream) => [1, 2, 3].map((k) => store.append(stream, [event('Late', { k })], { expectedRevision: 'any' }))));
        const all = ours(await store.readAll({ after: before, limit: 10_000 }));
        for (const stream of streams) {
          const read = await store.readStream(stream);
          expect(verifyChain(read)).toEqual({ ok: true, checked: read.length });
          expect(verifyChain(all.filter((e) => e.stream === stream))).toEqual({ ok: true, checked: read.length });
        }
      });
    });
  });
}
