import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { PGlite } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import knexFactory, { type Knex } from 'knex';
import ClientPgLite from 'knex-pglite';
import pg from 'pg';

import type { DatabaseKind } from '../../core/deps.js';

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
  const pglite = await openPglite(dir, options.sharedBuffersMb ?? 16);
  const knex = knexFactory({
    client: ClientPgLite as unknown as typeof knexFactory.Client,
    dialect: 'postgres',
    connection: { pglite } as unknown as Knex.StaticConnectionConfig,
  });
  await knex.raw('select 1');
  const maintenance = analyzePeriodically(knex);
  return {
    kind: 'pglite',
    knex,
    close: async () => {
      maintenance.stop();
      await knex.destroy();
    },
  };
}

const ANALYZE_EVERY_MS = 10 * 60_000;

/**
 * PGlite has no autovacuum: without ANALYZE its planner never learns the tables' sizes and, with
 * 100,000 verifications, intersected the whole account index with the search's trigram matches
 * (160 ms instead of 4 ms). Statistics are gathered shortly after opening and every 10 minutes
 * (ANALYZE samples at most 30,000 rows a table: about a second of the event loop at that size).
 */
function analyzePeriodically(knex: Knex): { stop(): void } {
  const analyze = () => void knex.raw('analyze').catch(() => undefined); // closed meanwhile: nothing to keep up to date
  const first = setTimeout(analyze, 5_000).unref();
  const every = setInterval(analyze, ANALYZE_EVERY_MS).unref();
  return {
    stop() {
      clearTimeout(first);
      clearInterval(every);
    },
  };
}

/**
 * Opens (or creates) an embedded cluster. A new one is unpacked from the empty-cluster template
 * the build leaves in dist/ (scripts/pglite-template.mjs): initdb would take seconds. Without
 * the template (a build that skipped it, another PGlite version) it is created the slow way.
 */
async function openPglite(dir: string | undefined, sharedBuffersMb: number): Promise<PGlite> {
  const fresh = dir === undefined || !fs.existsSync(path.join(dir, 'PG_VERSION'));
  const template = fresh ? emptyClusterTemplate() : undefined;
  // Shared buffers live in PGlite's WebAssembly memory: its default 128 MB alone would exceed the
  // idle footprint (D-049). The data files stay in the OS page cache, read through Node's fs.
  const options = {
    postgresqlconf: [`shared_buffers = ${sharedBuffersMb}MB`],
    // Trigram indexes serve the verification search (name contains ...), as on PostgreSQL.
    extensions: { pg_trgm },
    ...(template ? { loadDataDir: new Blob([new Uint8Array(template)]) } : {}),
  };
  return dir === undefined ? PGlite.create(options) : PGlite.create(dir, options);
}

function emptyClusterTemplate(): Buffer | undefined {
  // The package does not export its package.json: find it above its entry point.
  let dir = path.dirname(createRequire(import.meta.url).resolve('@electric-sql/pglite'));
  while (!fs.existsSync(path.join(dir, 'package.json'))) dir = path.dirname(dir);
  const { version } = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')) as { version: string };
  // src/adapters/db and dist/adapters/db both sit three levels below the repository.
  const file = path.resolve(import.meta.dirname, '../../..', 'dist', `pglite-${version}-empty.tgz`);
  return fs.existsSync(file) ? fs.readFileSync(file) : undefined;
}
