import fs from 'node:fs';
import path from 'node:path';
import knexFactory, { type Knex } from 'knex';
import ClientPgLite from 'knex-pglite';
import pg from 'pg';

import { PgliteProxy, type PgliteSession } from './pglite-proxy.js';

import type { DatabaseKind } from '../../core/module/deps.js';

export type { DatabaseKind };

export interface Database {
  kind: DatabaseKind;
  knex: Knex;
  close(): Promise<void>;
}

// BIGINT columns (event positions) come back as strings from pg; positions stay exact as BigInt.
pg.types.setTypeParser(pg.types.builtins.INT8, (value: string) => value);

/** PostgreSQL when a URL is given, otherwise PGlite persisted under dataDir (or in memory). */
export async function openDatabase(options: { url?: string; dataDir?: string; inMemory?: boolean; sharedBuffersMb?: number }): Promise<Database> {
  if (options.url) {
    const knex = knexFactory({ client: 'pg', connection: options.url, pool: { min: 0, max: 10 } });
    await knex.raw('select 1');
    return { kind: 'postgres', knex, close: () => knex.destroy() };
  }
  let dir: string | undefined;
  if (!options.inMemory) {
    if (!options.dataDir) throw new Error('openDatabase needs dataDir for an embedded database');
    dir = path.join(options.dataDir, 'pglite');
    fs.mkdirSync(dir, { recursive: true });
  }
  const sharedBuffersMb = options.sharedBuffersMb ?? 16;
  if (dir !== undefined && !fs.existsSync(path.join(dir, 'PG_VERSION'))) {
    // Unpacking the cluster grows PGlite's WebAssembly memory by ~130 MiB that it never gives
    // back (cold start 386 MiB idle against 257 after a warm one): create the cluster in a
    // thread of its own, end that thread, and serve from a fresh one (~0.5 s, once per DATA_DIR).
    await (await openPgliteThread(dir, sharedBuffersMb)).close();
  }
  // PGlite runs in its own thread (D-054); knex-pglite talks to it through the proxy as it would
  // to PGlite itself.
  const pglite = await openPgliteThread(dir, sharedBuffersMb);
  const knex = knexFactory({
    client: PgliteSessions as unknown as typeof knexFactory.Client,
    dialect: 'postgres',
    connection: { pglite } as unknown as Knex.StaticConnectionConfig,
  });
  await knex.raw('select 1');
  const maintenance = maintainPeriodically(knex);
  return {
    kind: 'pglite',
    knex,
    close: async () => {
      maintenance.stop();
      await knex.destroy(); // PgliteSessions closes the thread with it
    },
  };
}

/** Connections knex may hold at once over the one PGlite thread (D-069). */
const SESSIONS = 4;

/**
 * knex-pglite, with a pool of sessions of the proxy instead of its one connection (D-069): a
 * transaction still has the backend to itself (the proxy holds the other sessions' statements),
 * and other statements reach the thread without waiting for each other's round trips.
 */
class PgliteSessions extends ClientPgLite {
  override getPoolSettings(pool: Knex.PoolConfig | undefined) {
    return super.getPoolSettings({ ...pool, min: 1, max: SESSIONS });
  }

  async _acquireOnlyConnection(): Promise<PgliteSession> {
    const proxy = (this as unknown as { pglite: PgliteProxy }).pglite;
    await proxy.waitReady;
    return proxy.session();
  }

  /** A session is nothing to close (the pool also ends idle ones): the thread closes with knex below. */
  override async destroyRawConnection(): Promise<void> {}

  /** knex.destroy() closes the database, as knex-pglite's own client does. */
  override async destroy(callback?: (error?: unknown) => void): Promise<void> {
    try {
      await super.destroy(undefined);
    } finally {
      await (this as unknown as { pglite: PgliteProxy }).pglite.close();
    }
    callback?.();
  }
}

async function openPgliteThread(dir: string | undefined, sharedBuffersMb: number): Promise<PgliteProxy> {
  const pglite = new PgliteProxy({ dir, sharedBuffersMb });
  try {
    await pglite.waitReady;
  } catch (error) {
    await pglite.close();
    throw error;
  }
  return pglite;
}

const MAINTAIN_EVERY_MS = 10 * 60_000;

/**
 * PGlite has no autovacuum, so the service does its work (D-070): shortly after opening and every
 * 10 minutes, VACUUM then ANALYZE. Without ANALYZE the planner never learns the tables' sizes
 * and, with 100,000 verifications, intersected the whole account index with the search's
 * trigram matches (160 ms instead of 4 ms). Without VACUUM the dead row versions every projected
 * update leaves stay in the tables and in the trigram index's posting lists, and the GIN index's
 * pending list is only merged when it is full: the seeded 100,000 read 405 index pages per
 * search (5.7 ms) instead of 235 after it (2.3 ms). The first VACUUM of a database that never
 * had one takes seconds (4.9 s for the seeded 100,000, 60 ms the next time); ANALYZE samples at
 * most 30,000 rows a table (2.2 s of the database thread at that size).
 */
function maintainPeriodically(knex: Knex): { stop(): void } {
  const maintain = () => void knex.raw('vacuum (analyze)').catch(() => undefined); // closed meanwhile: nothing to keep up to date
  const first = setTimeout(maintain, 5_000).unref();
  const every = setInterval(maintain, MAINTAIN_EVERY_MS).unref();
  return {
    stop() {
      clearTimeout(first);
      clearInterval(every);
    },
  };
}
