import fs from 'node:fs';
import path from 'node:path';
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
export async function openDatabase(options: { url?: string; dataDir?: string; inMemory?: boolean }): Promise<Database> {
  if (options.url) {
    const knex = knexFactory({ client: 'pg', connection: options.url, pool: { min: 0, max: 10 } });
    await knex.raw('select 1');
    return { kind: 'postgres', knex, close: () => knex.destroy() };
  }
  let connection: { filename?: string } = {};
  if (!options.inMemory) {
    if (!options.dataDir) throw new Error('openDatabase needs dataDir for an embedded database');
    const filename = path.join(options.dataDir, 'pglite');
    fs.mkdirSync(filename, { recursive: true });
    connection = { filename };
  }
  const knex = knexFactory({
    client: ClientPgLite as unknown as typeof knexFactory.Client,
    dialect: 'postgres',
    connection: connection as Knex.StaticConnectionConfig,
  });
  await knex.raw('select 1');
  return { kind: 'pglite', knex, close: () => knex.destroy() };
}
