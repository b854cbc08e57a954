import crypto from 'node:crypto';
import knexFactory from 'knex';
import { openDatabase, type Database } from '../../src/infra/db.js';

/**
 * Every database-backed suite runs on PGlite, and also on real PostgreSQL when DATABASE_URL
 * is set (CI provisions it). Each test database is created fresh and dropped afterwards.
 */
export interface DatabaseTarget {
  name: 'pglite' | 'postgres';
  open(): Promise<Database>;
}

const postgresUrl = process.env.DATABASE_URL;

export const databaseTargets: DatabaseTarget[] = [
  { name: 'pglite', open: () => openDatabase({ inMemory: true }) },
  ...(postgresUrl ? [{ name: 'postgres' as const, open: () => openScratchPostgres(postgresUrl) }] : []),
];

if (!postgresUrl) {
  console.info('[tests] DATABASE_URL not set: PostgreSQL variants skipped, PGlite only.');
}

async function openScratchPostgres(url: string): Promise<Database> {
  const name = `pv_test_${crypto.randomBytes(6).toString('hex')}`;
  const admin = knexFactory({ client: 'pg', connection: url, pool: { min: 0, max: 1 } });
  await admin.raw(`create database ${name}`);
  const scratchUrl = new URL(url);
  scratchUrl.pathname = `/${name}`;
  const db = await openDatabase({ url: scratchUrl.toString() });
  return {
    ...db,
    async close() {
      await db.close();
      await admin.raw(`drop database if exists ${name} with (force)`);
      await admin.destroy();
    },
  };
}
