import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import knexFactory, { type Knex } from 'knex';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ProjectionRunner } from '../../src/adapters/db/projection-runner.js';
import { PostgresEventStore } from '../../src/adapters/eventstore/postgres.js';
import { allProjectors } from '../../src/modules.js';
import { databaseTargets } from '../support/databases.js';
import { requires } from '../support/requires.js';
import { registerAccount, uploadImage } from '../support/service.js';
import { eventually, startRole, type RoleProcess } from './processes.js';

/**
 * Read models projected by several processes on one PostgreSQL database (D-204): every
 * process runs the projection runner; a page is applied under the lock of the checkpoint rows, by
 * whichever runner gets there first. Events appended through two API processes at once must end
 * in read models equal to a single runner's rebuild, with no event lost or applied twice, and
 * each API answers a write only once its own read models include it.
 */
const postgres = databaseTargets.find((target) => target.name === 'postgres');
const shared = requires(
  { server: 'PostgreSQL server', variable: 'DATABASE_URL', available: Boolean(postgres), how: 'scripts/start-postgres.sh starts one and prints its URL' },
  'read models projected by two processes on one database',
);

/** Every read-model table, rows in a stable order (keys sorted, rows sorted), to compare two states. */
async function snapshot(knex: Knex): Promise<Record<string, string[]>> {
  const tables: Record<string, string[]> = {};
  for (const projector of allProjectors) {
    for (const table of projector.tables) {
      const rows: Record<string, unknown>[] = await knex(table).select('*');
      tables[table] = rows.map((row) => JSON.stringify(Object.fromEntries(Object.entries(row).sort(([a], [b]) => a.localeCompare(b))))).sort();
    }
  }
  return tables;
}

shared.describe('read models with two API processes on one PostgreSQL database', () => {
  let scratch: { url: string | undefined; drop(): Promise<void> };
  let dataDir: string;
  let a: RoleProcess;
  let b: RoleProcess;

  beforeAll(async () => {
    scratch = await postgres!.scratchUrl();
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'pv-roles-readmodels-'));
    // Started together: their migrations run one after the other (the migration lock).
    [a, b] = await Promise.all([startRole({ ROLE: 'all', DATA_DIR: dataDir, DATABASE_URL: scratch.url! }), startRole({ ROLE: 'api', DATA_DIR: dataDir, DATABASE_URL: scratch.url! })]);
  }, 300_000);
  afterAll(async () => {
    await a?.kill();
    await b?.kill();
    await scratch?.drop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('projects every event once whoever applies it: equal to a single-runner rebuild, and each API reads its own writes', { timeout: 900_000 }, async () => {
    const apis = [a, b];
    // Accounts registered through both; every token works on both (one secret in the shared DATA_DIR).
    const owners = await Promise.all([0, 1, 2, 3].map((i) => registerAccount(apis[i % 2]!.call)));
    let added = 0;
    let keys = 0;
    const ids: string[] = [];
    const owned: string[][] = [];
    await Promise.all(
      owners.map(async (owner, o) => {
        // Uploads through both, each readable at once through the process that took it.
        const mine: string[] = [];
        owned[o] = mine;
        for (let u = 0; u < 2; u++) {
          const api = apis[(o + u) % 2]!;
          const id = await uploadImage(api.url, owner.token, 'images/rs_sample1.webp', `o${o}-u${u}.webp`);
          ids.push(id);
          mine.push(id);
          expect((await api.call('GET', `/v1/verifications/${id}`, { token: owner.token })).status).toBe(200);
          // Comments sent to both at once: each answer means its own process's read model has it.
          await Promise.all(
            Array.from({ length: 6 }, async (_, c) => {
              const through = apis[c % 2]!;
              const comment = await through.call('POST', `/v1/verifications/${id}/comments`, { token: owner.token, json: { body: `comment ${c} via ${c % 2 ? 'b' : 'a'}` } });
              expect(comment.status, JSON.stringify(comment.body)).toBe(201);
              added++;
              const list = await through.call('GET', `/v1/verifications/${id}/comments`, { token: owner.token });
              expect(list.body.items.map((item: { id: string }) => item.id)).toContain(comment.body.id);
            }),
          );
        }
        // A key created through one process authenticates at once through it.
        const creator = apis[(o + 1) % 2]!;
        const key = await creator.call('POST', '/v1/apikeys/', { token: owner.token, json: { account_id: owner.account.id } });
        expect(key.status).toBe(201);
        keys++;
        expect((await creator.call('GET', `/v1/verifications/${mine[0]}`, { apiKey: key.body.raw_key })).status).toBe(200);
      }),
    );

    // Both processes see every verification completed once caught up.
    for (const [o, owner] of owners.entries()) {
      for (const id of owned[o]!) {
        for (const api of apis) {
          await eventually(async () => (await api.call('GET', `/v1/verifications/${id}`, { token: owner.token })).body.status === 'completed', `${id} completed as seen by ${api.url}`);
        }
      }
    }
    expect(await a.stop()).toBe(0);
    expect(await b.stop()).toBe(0);

    const knex = knexFactory({ client: 'pg', connection: scratch.url!, pool: { min: 0, max: 2 } });
    try {
      // No event lost, none twice: the log holds exactly what was answered, with no hole in its positions.
      const count = async (type: string) => Number((await knex('events').where({ type }).count<{ n: string }[]>('* as n'))[0]!.n);
      expect(await count('CommentAdded')).toBe(added);
      expect(await count('ApiKeyCreated')).toBe(keys);
      expect(await count('VerificationCompleted')).toBe(ids.length);
      const positions = (await knex('events').select('position').orderBy('position')).map((row: { position: string }) => Number(row.position));
      expect(positions).toEqual(Array.from({ length: positions.length }, (_, i) => i + 1));
      const checkpoints = await knex('projection_checkpoints').select('name', 'position');
      expect(checkpoints).toHaveLength(allProjectors.length);
      for (const checkpoint of checkpoints) expect(Number(checkpoint.position), checkpoint.name).toBe(positions.length);

      // What the two runners built together equals one runner replaying the whole log.
      const projected = await snapshot(knex);
      expect(projected.comments?.length ?? added).toBe(added);
      const runner = new ProjectionRunner(knex, new PostgresEventStore(knex), allProjectors);
      await runner.migrate();
      await runner.rebuild();
      const rebuilt = await snapshot(knex);
      for (const table of Object.keys(rebuilt)) expect(projected[table], table).toEqual(rebuilt[table]);
    } finally {
      await knex.destroy();
    }
  });
});
