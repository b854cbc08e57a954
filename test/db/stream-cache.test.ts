import crypto from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../../src/adapters/db/database.js';
import { migrateEventStore, PostgresEventStore } from '../../src/adapters/eventstore/postgres.js';
import { StreamCache } from '../../src/adapters/eventstore/stream-cache.js';
import type { NewEvent, StoredEvent } from '../../src/core/es/event-store.js';

/** The embedded database's stream cache (D-067): what it keeps, and when it must not. */
function stored(stream: string, revision: number, data: Record<string, unknown> = {}): StoredEvent {
  const id = crypto.randomUUID();
  return {
    id,
    stream,
    revision,
    position: BigInt(revision + 1),
    type: 'Probe',
    version: 1,
    data,
    metadata: { account_id: null, actor: { type: 'system', id: 'test' }, causation_id: id, correlation_id: id, processing_region: 'eu-central-1', occurred_at: new Date().toISOString() },
    recorded_at: new Date().toISOString(),
    // The cache keeps events as given: these stand for the adapter's hashes.
    content_hash: `content-${revision}`,
    hash: `hash-${revision}`,
    previous_hash: revision === 0 ? null : `hash-${revision - 1}`,
  };
}

function appendTo(cache: StreamCache, stream: string, events: StoredEvent[] | null) {
  cache.beginAppend();
  return cache.endAppend(stream, events);
}

describe('StreamCache', () => {
  it('keeps a stream its appends created and extended, as copies of frozen events', () => {
    const cache = new StreamCache();
    appendTo(cache, 's', [stored('s', 0, { nested: { n: 1 } })]);
    appendTo(cache, 's', [stored('s', 1), stored('s', 2)]);
    const events = cache.get('s')!;
    expect(events.map((e) => e.revision)).toEqual([0, 1, 2]);
    events.pop(); // the caller's copy
    expect(cache.get('s')).toHaveLength(3);
    expect(() => ((events[0]!.data.nested as { n: number }).n = 2)).toThrow(TypeError);
  });

  it('drops a stream when an append does not follow its last revision, or fails', () => {
    const cache = new StreamCache();
    appendTo(cache, 'gap', [stored('gap', 0)]);
    appendTo(cache, 'gap', [stored('gap', 2)]); // revision 1 came from elsewhere: unknown here
    expect(cache.get('gap')).toBeUndefined();
    appendTo(cache, 'failed', [stored('failed', 0)]);
    appendTo(cache, 'failed', null);
    expect(cache.get('failed')).toBeUndefined();
    appendTo(cache, 'middle', [stored('middle', 3)]); // not kept before: its start is unknown
    expect(cache.get('middle')).toBeUndefined();
  });

  it('keeps a read only when no append overlapped it', () => {
    const cache = new StreamCache();
    const quiet = cache.beginRead();
    cache.read('r', quiet, [stored('r', 0)]);
    expect(cache.get('r')).toHaveLength(1);

    const overlapped = cache.beginRead();
    appendTo(cache, 'other', [stored('other', 0)]); // any append may have committed before the read answered
    cache.read('r2', overlapped, [stored('r2', 0)]);
    expect(cache.get('r2')).toBeUndefined();

    cache.beginAppend(); // in flight when the read starts
    const during = cache.beginRead();
    cache.read('r3', during, [stored('r3', 0)]);
    cache.endAppend('x', [stored('x', 0)]);
    expect(cache.get('r3')).toBeUndefined();
  });

  it('forgets the least recently used stream beyond its capacity', () => {
    const cache = new StreamCache();
    for (let i = 0; i <= 64; i++) appendTo(cache, `s${i}`, [stored(`s${i}`, 0)]);
    expect(cache.get('s0')).toBeUndefined();
    expect(cache.get('s64')).toHaveLength(1);
  });
});

describe('PostgresEventStore on the embedded database, exclusive', () => {
  let db: Database;
  beforeAll(async () => {
    db = await openDatabase({ inMemory: true });
    await migrateEventStore(db.knex);
  });
  afterAll(async () => db?.close());

  function event(): NewEvent {
    const id = crypto.randomUUID();
    return { id, type: 'Probe', version: 1, data: { id }, metadata: stored('x', 0).metadata };
  }

  it('reads back what it appended without a query, exactly as a read of the table returns it', async () => {
    const store = new PostgresEventStore(db.knex, { exclusive: true });
    const stream = `cached-${crypto.randomUUID()}`;
    await store.append(stream, [event(), event()], { expectedRevision: 'no_stream' });
    await store.append(stream, [event()], { expectedRevision: 1 });
    let queries = 0;
    const count = () => queries++;
    db.knex.on('query', count);
    const kept = await store.readStream(stream);
    db.knex.off('query', count);
    expect(queries).toBe(0);
    expect(kept).toEqual(await new PostgresEventStore(db.knex).readStream(stream));
  });
});
