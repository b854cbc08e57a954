import crypto from 'node:crypto';
import knexFactory from 'knex';
import { openDatabase, type Database } from '../../src/adapters/db/database.js';
import { reportSkip } from './requires.js';

/**
 * Every database-backed suite runs on PGlite, and also on real PostgreSQL when DATABASE_URL
 * is set (CI provisions it). Each test database is created fresh and dropped afterwards.
 */
export interface DatabaseTarget {
  name: 'pglite' | 'postgres';
  open(): Promise<Database>;
  /** A scratch database URL for a whole service (undefined for PGlite: the service embeds it). */
  scratchUrl(): Promise<{ url: string | undefined; drop(): Promise<void> }>;
}

const postgresUrl = process.env.DATABASE_URL;

export const databaseTargets: DatabaseTarget[] = [
  {
    name: 'pglite',
    open: () => openDatabase({ inMemory: true }),
    scratchUrl: async () => ({ url: undefined, drop: async () => {} }),
  },
  ...(postgresUrl
    ? [
        {
          name: 'postgres' as const,
          async open() {
            const scratch = await scratchPostgres(postgresUrl);
            const db = await openDatabase({ url: scratch.url });
            return { ...db, close: async () => (await db.close(), await scratch.drop()) };
          },
          scratchUrl: () => scratchPostgres(postgresUrl),
        },
      ]
    : []),
];

if (!postgresUrl) {
  reportSkip('the PostgreSQL variant of the database suites (they ran on PGlite)', {
    server: 'PostgreSQL server',
    variable: 'DATABASE_URL',
    how: 'scripts/start-postgres.sh starts one and prints its URL',
  });
}

async function scratchPostgres(url: string): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `pv_test_${crypto.randomBytes(6).toString('hex')}`;
  const admin = knexFactory({ client: 'pg', connection: url, pool: { min: 0, max: 1 } });
  await admin.raw(`create database ${name}`);
  const scratch = new URL(url);
  scratch.pathname = `/${name}`;
  return {
    url: scratch.toString(),
    async drop() {
      await admin.raw(`drop database if exists ${name} with (force)`);
      await admin.destroy();
    },
  };
}
