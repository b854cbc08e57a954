/**
 * The embedded database in its own thread (D-054): through knex, as the service uses it, errors,
 * transactions, values and concurrency behave as PGlite on the event loop did; a dead thread
 * fails its queries instead of hanging them; closing ends the thread, so the process can exit.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../../src/adapters/db/database.js';
import { PgliteProxy } from '../../src/adapters/db/pglite-proxy.js';

const repo = path.resolve(import.meta.dirname, '../..');

describe('PGlite in its own thread, through knex', () => {
  let db: Database;
  beforeAll(async () => {
    db = await openDatabase({ inMemory: true });
    await db.knex.raw('create table items (id bigint primary key, name text not null unique, at timestamptz, bytes bytea, doc jsonb)');
  });
  afterAll(() => db.close());

  it('answers with the values PGlite parsed: BIGINT beyond 2^53, timestamps, bytes, JSON', async () => {
    const at = new Date('2026-11-23T12:34:56.789Z');
    await db.knex('items').insert({ id: '9007199254740993', name: 'values', at, bytes: Buffer.from([0, 1, 254, 255]), doc: JSON.stringify({ nested: [1, 'two'] }) });
    const row = await db.knex('items').where({ name: 'values' }).first();
    expect(row.id).toBe(9007199254740993n);
    expect(row.at).toBeInstanceOf(Date);
    expect(row.at.toISOString()).toBe(at.toISOString());
    expect(row.bytes).toBeInstanceOf(Uint8Array);
    expect([...row.bytes]).toEqual([0, 1, 254, 255]);
    expect(row.doc).toEqual({ nested: [1, 'two'] });
  });

  it('rejects with PostgreSQL error fields: a unique violation keeps its code, detail, table and constraint', async () => {
    await db.knex('items').insert({ id: 1, name: 'taken' });
    const error = await db.knex('items').insert({ id: 2, name: 'taken' }).then(() => null, (e: unknown) => e as Record<string, unknown>);
    expect(error).toBeInstanceOf(Error);
    expect(error).toMatchObject({ code: '23505', constraint: 'items_name_key', table: 'items', severity: 'ERROR' });
    expect(error!.detail).toBe('Key (name)=(taken) already exists.');
    // knex puts the statement before PostgreSQL's message, as it does for every driver.
    expect(error!.message).toMatch(/insert into "items".* - duplicate key value violates unique constraint "items_name_key"$/);
  });

  it('keeps an error code raised in SQL (a serialization failure) and its detail and hint', async () => {
    const error = await db.knex
      .raw(`do $$ begin raise exception 'could not serialize' using errcode = '40001', detail = 'the detail', hint = 'the hint'; end $$`)
      .then(() => null, (e: unknown) => e as Record<string, unknown>);
    expect(error).toMatchObject({ code: '40001', detail: 'the detail', hint: 'the hint' });
  });

  it('runs named statements (core/es/prepared.ts) prepared, with the same answers as unnamed ones, and prepares them again after DDL', async () => {
    await db.knex.raw('create table named (id bigint primary key, name text not null, at timestamptz)');
    await db.knex('named').insert([
      { id: 1, name: "it's quoted \\ and 'twice'" },
      { id: 2, name: 'plain', at: new Date('2026-01-02T03:04:05Z') },
      { id: '9007199254740993', name: 'big' },
    ]);
    const sql = 'select id, name, at from named where (name = ? or id = ?) and (?::int is null or id > ?) order by id';
    for (const values of [["it's quoted \\ and 'twice'", 2, null, 0], ['none', '9007199254740993', 1, 1], ['plain', 0, 5, -1]]) {
      const unnamed = (await db.knex.raw(sql, values)).rows;
      const named = (await db.knex.raw(sql, values).options({ name: 'pv_test_named' })).rows;
      expect(named).toEqual(unnamed);
      expect(named.length).toBeGreaterThan(0);
    }
    const preparedCount = async (name: string) => (await db.knex.raw('select count(*)::int as n from pg_prepared_statements where name = ?', [name])).rows[0].n;
    expect(await preparedCount('pv_test_named')).toBe(1);
    // A column added to the table changes the result type of `select *`: PostgreSQL refuses the
    // old plan (0A000) and the statement is prepared again.
    const star = () => db.knex.raw('select * from named where id = ?', [2]).options({ name: 'pv_test_star' });
    expect((await star()).rows).toMatchObject([{ id: 2, name: 'plain' }]);
    await db.knex.raw('alter table named add column extra text');
    expect((await star()).rows).toMatchObject([{ id: 2, name: 'plain', extra: null }]);
    // A value without a text form (bytes) runs unprepared.
    const bytes = await db.knex.raw('select ?::bytea as b', [Buffer.from([1, 2])]).options({ name: 'pv_test_bytes' });
    expect([...bytes.rows[0].b]).toEqual([1, 2]);
    expect(await preparedCount('pv_test_bytes')).toBe(0);
  });

  it('runs named statements with generic plans and every other statement as PostgreSQL chooses, transactions included', async () => {
    const mode = 'select current_setting(\'plan_cache_mode\') as mode, ?::int as n';
    const named = async (runner: typeof db.knex = db.knex) => (await runner.raw(mode, [1]).options({ name: 'pv_test_mode' })).rows[0].mode;
    const unnamed = async (runner: typeof db.knex = db.knex) => (await runner.raw(mode, [1])).rows[0].mode;
    expect(await named()).toBe('force_generic_plan');
    expect(await unnamed()).toBe('auto');
    expect(await named()).toBe('force_generic_plan');
    // A transaction begins in the default mode, and the mode is not changed inside one (a
    // rollback would undo the change without the thread knowing): a named statement there is
    // planned as PostgreSQL chooses.
    await db.knex
      .transaction(async (trx) => {
        expect(await named(trx)).toBe('auto');
        expect(await unnamed(trx)).toBe('auto');
        throw new Error('abandon');
      })
      .catch(() => undefined);
    expect(await named()).toBe('force_generic_plan');
    await db.knex.transaction(async (trx) => expect(await named(trx)).toBe('auto'));
    expect(await named()).toBe('force_generic_plan');
    expect(await unnamed()).toBe('auto');
  });

  it('rolls a transaction back when its callback throws, and commits one that returns', async () => {
    await expect(
      db.knex.transaction(async (trx) => {
        await trx('items').insert({ id: 10, name: 'rolled back' });
        expect(await trx('items').where({ id: 10 }).first()).toBeDefined(); // visible inside
        throw new Error('abandon');
      }),
    ).rejects.toThrow('abandon');
    expect(await db.knex('items').where({ id: 10 }).first()).toBeUndefined();
    await db.knex.transaction(async (trx) => trx('items').insert({ id: 11, name: 'committed' }));
    expect(await db.knex('items').where({ id: 11 }).first()).toMatchObject({ name: 'committed' });
  });

  it('answers every one of many concurrent queries with its own result, a failing transaction among them', async () => {
    const queries = Array.from({ length: 60 }, (_, i) => db.knex.raw<{ rows: { n: number; echo: string }[] }>('select ?::int * 2 as n, ?::text as echo', [i, `q${i}`]));
    const failing = db.knex.transaction(async (trx) => {
      await trx('items').insert({ id: 20, name: 'concurrent' });
      await trx.raw('select 1/0');
    });
    const [answers, failed] = await Promise.all([Promise.all(queries), failing.then(() => null, (e: unknown) => e)]);
    expect(answers.map((a) => a.rows[0])).toEqual(Array.from({ length: 60 }, (_, i) => ({ n: i * 2, echo: `q${i}` })));
    expect(failed).toMatchObject({ code: '22012' }); // division by zero
    expect(await db.knex('items').where({ id: 20 }).first()).toBeUndefined();
  });
});

describe('a BEGIN that is not waited for (D-068)', () => {
  it('keeps a transaction whole: its statements are refused, never committed one by one, when no transaction is open', async () => {
    const proxy = new PgliteProxy({ dir: undefined, sharedBuffersMb: 16 });
    try {
      await proxy.waitReady;
      await proxy.query('create table t (n int)');
      // What the proxy sends for a statement that follows its BEGIN, here with no BEGIN before it.
      const send = (proxy as unknown as { request(message: object): Promise<unknown> }).request.bind(proxy);
      await expect(send({ sql: 'insert into t values (1)', inTransaction: true })).rejects.toThrow(/transaction this statement belongs to is not open/);
      // The usual way: BEGIN answers at once, the statements after it run inside the transaction.
      await proxy.query('BEGIN;');
      await proxy.query('insert into t values (2)');
      await proxy.query('ROLLBACK');
      await proxy.query('BEGIN;');
      await proxy.query('insert into t values (3)');
      await proxy.query('COMMIT;');
      expect((await proxy.query<{ n: number }>('select n from t')).rows).toEqual([{ n: 3 }]);
    } finally {
      await proxy.close();
    }
  });
});

describe('several knex connections over the one backend (D-069)', () => {
  let db: Database;
  beforeAll(async () => {
    db = await openDatabase({ inMemory: true });
    await db.knex.raw('create table s (n int primary key)');
  });
  afterAll(() => db.close());

  it('holds the other connections’ statements while one has a transaction open, then runs them outside it', async () => {
    const trx = await db.knex.transaction();
    await trx('s').insert({ n: 1 });
    let done = false;
    const outside = db.knex('s').insert({ n: 2 }).then(() => (done = true));
    const read = db.knex('s').select('n');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(done).toBe(false); // not run inside the open transaction (its rollback would undo it)
    await trx.rollback();
    await outside;
    expect((await read).map((r) => r.n)).toEqual([2]); // ran after the rollback: never saw n = 1
    expect((await db.knex('s').select('n')).map((r) => r.n)).toEqual([2]);
  });

  it('keeps concurrent transactions whole and apart', async () => {
    const outcomes = await Promise.allSettled(
      Array.from({ length: 12 }, (_, i) =>
        db.knex.transaction(async (trx) => {
          await trx('s').insert({ n: 100 + i });
          await trx('s').insert({ n: 200 + i });
          if (i % 3 === 0) throw new Error('abandon');
        }),
      ),
    );
    expect(outcomes.filter((o) => o.status === 'rejected')).toHaveLength(4);
    const rows = (await db.knex('s').where('n', '>=', 100).orderBy('n').select('n')).map((r) => r.n);
    const kept = Array.from({ length: 12 }, (_, i) => i).filter((i) => i % 3 !== 0);
    expect(rows).toEqual([...kept.map((i) => 100 + i), ...kept.map((i) => 200 + i)]);
  });
});

describe('the thread dying or closing', () => {
  it('fails the query in flight and every later one when the thread dies, instead of hanging them', async () => {
    const proxy = new PgliteProxy({ dir: undefined, sharedBuffersMb: 16 });
    await proxy.waitReady;
    expect((await proxy.query<{ one: number }>('select 1 as one')).rows).toEqual([{ one: 1 }]);
    const inFlight = proxy.query('select pg_sleep(30)');
    // What a crash of the thread looks like from the main thread: it stops mid-query.
    await (proxy as unknown as { worker: { terminate(): Promise<number> } }).worker.terminate();
    await expect(inFlight).rejects.toThrow(/thread stopped/);
    await expect(proxy.query('select 1')).rejects.toThrow(/thread stopped/);
    await proxy.close(); // nothing left to close: returns
  });

  it('rejects queries after close()', async () => {
    const db = await openDatabase({ inMemory: true });
    await db.close();
    await expect(db.knex.raw('select 1')).rejects.toThrow();
  });

  // Also a program given as text (`node --input-type=module -e`): the thread must not inherit those options.
  // Closed by the database's close(), or by knex.destroy() alone as with knex-pglite's own client (scripts, benches).
  it.each(['db.close()', 'db.knex.destroy()'])('lets a process that opened a database and called %s exit by itself (the thread ends with it)', async (closing) => {
    const script = `const { openDatabase } = await import(${JSON.stringify(path.join(repo, 'dist/src/adapters/db/database.js'))});
      const db = await openDatabase({ inMemory: true });
      const { rows } = await db.knex.raw('select 41 + 1 as answer');
      process.stdout.write(String(rows[0].answer));
      await ${closing};`;
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk));
    child.stderr.on('data', (chunk: Buffer) => (err += chunk));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    // A hang shows as this generous limit passing (the machine is shared and loaded).
    const limit = new Promise<'hung'>((resolve) => setTimeout(() => resolve('hung'), 90_000).unref());
    const outcome = await Promise.race([exited, limit]);
    if (outcome === 'hung') child.kill('SIGKILL');
    expect({ outcome, out, err }).toEqual({ outcome: 0, out: '42', err: '' });
  }, 120_000);
});
