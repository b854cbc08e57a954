import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { openDatabase, type Database } from '../../src/adapters/db/database.js';
import { migrateEventStore, PostgresEventStore } from '../../src/adapters/eventstore/postgres.js';
import { COMMAND_ATTEMPTS, runCommand, type CommandContext, type Decider, type Folded } from '../../src/core/es/decider.js';
import { AppError, WrongExpectedRevisionError } from '../../src/core/errors.js';
import type { EventStore } from '../../src/core/es/event-store.js';
import { defineEvent } from '../../src/core/es/events.js';

/** runCommand's `from`: a command decided on state the caller holds, checked by the append's expected revision. */
const catalogue = { Counted: defineEvent('Counted', z.object({ to: z.number().int() })) };
type Command = { type: 'CountTo'; n: number } | { type: 'CountOnce'; requireAtLeast: number };
const counter: Decider<{ n: number }, Command, typeof catalogue> = {
  catalogue,
  initialState: () => ({ n: 0 }),
  evolve: (_state, event) => ({ n: event.data.to }),
  decide(command, state) {
    if (command.type === 'CountOnce' && state.n < command.requireAtLeast) throw new AppError('CONFLICT', `not yet at ${command.requireAtLeast}`);
    const target = command.type === 'CountTo' ? command.n : state.n + 1;
    return state.n < target ? [{ type: 'Counted', data: { to: state.n + 1 } }] : [];
  },
};

const context: CommandContext = {
  accountId: null,
  actor: { type: 'system', id: 'test' },
  correlationId: 'c',
  causationId: 'c',
  processingRegion: 'eu-central-1',
  now: new Date('2026-03-01T10:00:00Z'),
};
const fresh: Folded<{ n: number }> = { state: { n: 0 }, revision: 'no_stream' };

describe('runCommand from a state the caller holds', () => {
  let db: Database;
  let store: PostgresEventStore;
  let reads = 0;
  let next = 0;
  const stream = () => `counter-${++next}`;
  const counts = async (name: string) => (await store.readStream(name)).map((e) => e.data.to);

  beforeAll(async () => {
    db = await openDatabase({ inMemory: true });
    await migrateEventStore(db.knex);
    store = new PostgresEventStore(db.knex);
    const readStream = store.readStream.bind(store);
    store.readStream = (name) => {
      reads++;
      return readStream(name);
    };
  });
  afterAll(() => db.close());

  it('decides on `from` without reading the stream, and its outcome starts the next command', async () => {
    const name = stream();
    reads = 0;
    const first = await runCommand(store, name, counter, { type: 'CountTo', n: 1 }, context, fresh);
    const second = await runCommand(store, name, counter, { type: 'CountTo', n: 2 }, context, first);
    expect(reads).toBe(0);
    expect(second).toMatchObject({ state: { n: 2 }, revision: 1 });
    expect(await counts(name)).toEqual([1, 2]);
  });

  it('decides again on the stream when `from` is stale (the append finds the stream moved)', async () => {
    const name = stream();
    await runCommand(store, name, counter, { type: 'CountTo', n: 2 }, context);
    await runCommand(store, name, counter, { type: 'CountTo', n: 2 }, context);
    reads = 0;
    const outcome = await runCommand(store, name, counter, { type: 'CountTo', n: 3 }, context, fresh);
    expect(reads).toBe(1);
    expect(outcome.events).toEqual([{ type: 'Counted', data: { to: 3 } }]);
    expect(await counts(name)).toEqual([1, 2, 3]);
  });

  it('confirms a decision of nothing on the stream: `from` may lag behind it', async () => {
    const name = stream();
    await runCommand(store, name, counter, { type: 'CountTo', n: 1 }, context);
    const outcome = await runCommand(store, name, counter, { type: 'CountTo', n: 2 }, context, { state: { n: 5 }, revision: 0 });
    expect(outcome.events).toEqual([{ type: 'Counted', data: { to: 2 } }]);
    expect(await counts(name)).toEqual([1, 2]);
  });

  it('makes a refusal on `from` again on the stream, which may allow the command', async () => {
    const name = stream();
    await runCommand(store, name, counter, { type: 'CountTo', n: 1 }, context);
    const outcome = await runCommand(store, name, counter, { type: 'CountOnce', requireAtLeast: 1 }, context, fresh);
    expect(outcome.events).toEqual([{ type: 'Counted', data: { to: 2 } }]);
    await expect(runCommand(store, stream(), counter, { type: 'CountOnce', requireAtLeast: 1 }, context, fresh)).rejects.toThrow(/not yet at 1/);
  });

  it('decides nothing without appending when the stream agrees', async () => {
    const name = stream();
    const done = await runCommand(store, name, counter, { type: 'CountTo', n: 1 }, context);
    const again = await runCommand(store, name, counter, { type: 'CountTo', n: 1 }, context, done);
    expect(again).toMatchObject({ events: [], position: null, state: { n: 1 }, revision: 0 });
    expect(await counts(name)).toEqual([1]);
  });
});

describe('runCommand under contention', () => {
  let db: Database;
  let store: PostgresEventStore;
  let next = 0;
  const stream = () => `contended-${++next}`;
  const counts = async (name: string) => (await store.readStream(name)).map((e) => e.data.to);
  /** The store as one process sees it, counting the appends it lost. */
  const process = (appends: (name: string) => Promise<void> = async () => {}) => {
    const view: EventStore & { lost: number } = Object.assign(Object.create(store) as EventStore, { lost: 0 });
    view.append = async (name, events, options) => {
      await appends(name);
      return store.append(name, events, options).catch((error: unknown) => {
        if (error instanceof WrongExpectedRevisionError) view.lost += 1;
        throw error;
      });
    };
    return view;
  };
  const countOnce = { type: 'CountOnce', requireAtLeast: 0 } as const;

  beforeAll(async () => {
    db = await openDatabase({ inMemory: true });
    await migrateEventStore(db.knex);
    store = new PostgresEventStore(db.knex);
  });
  afterAll(() => db.close());

  it("takes turns within a process: 30 concurrent commands on one stream all land and no append loses", async () => {
    const name = stream();
    const one = process();
    await Promise.all(Array.from({ length: 30 }, () => runCommand(one, name, counter, countOnce, context)));
    expect(one.lost).toBe(0);
    expect(await counts(name)).toEqual(Array.from({ length: 30 }, (_, i) => i + 1));
  });

  it('decides again after losing to another process, until every command of both has landed', async () => {
    const name = stream();
    const [a, b] = [process(), process()];
    // Each lost race is one append of the other process: with 5 commands each, none can lose COMMAND_ATTEMPTS times.
    await Promise.all(Array.from({ length: 10 }, (_, i) => runCommand(i % 2 ? a : b, name, counter, countOnce, context)));
    expect(await counts(name)).toEqual(Array.from({ length: 10 }, (_, i) => i + 1));
  });

  it(`gives up after ${COMMAND_ATTEMPTS} lost races with 503 SERVICE_UNAVAILABLE and Retry-After, naming no stream`, async () => {
    const name = stream();
    let attempts = 0;
    // Another process appends before each of this one's appends.
    const losing = process(async (target) => {
      attempts += 1;
      await runCommand(store, target, counter, countOnce, context);
    });
    const error = await runCommand(losing, name, counter, countOnce, context).then(() => null, (e: unknown) => e as AppError);
    expect(error).toBeInstanceOf(AppError);
    expect(error).toMatchObject({ code: 'SERVICE_UNAVAILABLE', details: { retry_after_seconds: 1 } });
    expect(error!.message).not.toContain(name);
    expect(error!.message).not.toMatch(/stream/i);
    expect(attempts).toBe(COMMAND_ATTEMPTS);
    expect(losing.lost).toBe(COMMAND_ATTEMPTS);
    expect(await counts(name)).toEqual(Array.from({ length: COMMAND_ATTEMPTS }, (_, i) => i + 1));
  });
});
