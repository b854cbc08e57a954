import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { databaseTargets } from '../support/databases.js';
import { runNode } from '../support/processes.js';
import { requires } from '../support/requires.js';
import { client, registerAccount, startTestService, uploadImage } from '../support/service.js';
import { eventually, roleProcesses, startRole, type RoleProcess } from './processes.js';

/**
 * Roles without Temporal (issue 26, D-205 and D-206): one process per PostgreSQL database runs
 * the in-process workflow engine (ROLE=all or worker, holding a session advisory lock); a
 * second is refused with a message naming TEMPORAL_ADDRESS; ROLE=api processes record runs that
 * the engine's process executes, once. Real processes (dist/) over real sockets.
 */
describe('ROLE on the embedded PGlite', () => {
  it('refuses ROLE=api and ROLE=worker without DATABASE_URL, saying why', { timeout: 120_000 }, async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'pv-roles-pglite-'));
    try {
      for (const role of ['api', 'worker']) {
        const run = await runNode(['dist/src/main.js'], { PORT: '0', DATA_DIR: dataDir, ROLE: role, DATABASE_URL: '', TEMPORAL_ADDRESS: '', EVENTSTORE_URL: '' });
        expect(run.code).toBe(78);
        expect(run.stderr).toContain(`ROLE=${role} needs DATABASE_URL`);
        expect(run.stderr).toContain('runs as ROLE=all');
      }
      // Refused before opening anything: no database was created.
      expect(fs.existsSync(path.join(dataDir, 'pglite'))).toBe(false);
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

const postgres = databaseTargets.find((target) => target.name === 'postgres');
const shared = requires(
  { server: 'PostgreSQL server', variable: 'DATABASE_URL', available: Boolean(postgres), how: 'scripts/start-postgres.sh starts one and prints its URL' },
  'several processes on one database (PGlite belongs to one process)',
);

shared.describe('ROLE without Temporal: one in-process workflow engine per PostgreSQL database', () => {
  const { env, start, processes } = roleProcesses(postgres!, 'inprocess');

  const history = async (api: RoleProcess, token: string, id: string) =>
    ((await api.call('GET', `/v1/audit/streams/verification-${id}`, { token })).body.events as { type: string }[]).map((e) => e.type);
  const completed = (api: RoleProcess, token: string, id: string) =>
    eventually(async () => {
      const body = (await api.call('GET', `/v1/verifications/${id}`, { token })).body;
      return body.status === 'completed' && body;
    }, `verification ${id} to complete`);

  it('refuses a second engine, lets ROLE=api record runs the engine runs once, and hands the engine over when its holder dies', { timeout: 600_000 }, async () => {
    const first = await start('all');

    // A second engine on the same database: refused at start, naming the way out.
    for (const role of ['all', 'worker']) {
      const run = await runNode(['dist/src/main.js'], { ...env(role), PORT: '0', LOG_LEVEL: 'warn', PASSWORD_HASH_COST: '10', TEMPORAL_ADDRESS: '', EVENTSTORE_URL: '' });
      expect(run.code, run.stderr).toBe(78);
      expect(run.stderr).toContain(`ROLE=${role}: another process on this database already runs the in-process workflow engine`);
      expect(run.stderr).toContain('TEMPORAL_ADDRESS');
      expect(run.stderr).toContain('ROLE=api');
    }

    const api = await start('api');
    const apiHealth = (await api.call('GET', '/v1/public/health')).body;
    expect(apiHealth).toMatchObject({ status: 'ok', role: 'api', dependencies: { workflows: { status: 'ok', adapter: expect.stringContaining('executed by the worker process') } } });
    expect(apiHealth.dependencies.mail).toBeUndefined(); // an API process sends no mail
    const firstHealth = (await first.call('GET', '/v1/public/health')).body;
    expect(firstHealth).toMatchObject({ status: 'ok', role: 'all', dependencies: { workflows: { status: 'ok', adapter: 'inprocess' }, mail: { status: 'ok', adapter: 'outbox' } } });

    // Uploads through the API process: recorded there, executed by the first, each once.
    const { token } = await registerAccount(api.call);
    const ids = await Promise.all(['a.webp', 'b.webp', 'c.webp'].map((name) => uploadImage(api.url, token, 'images/rs_sample1.webp', name)));
    for (const id of ids) {
      await completed(api, token, id);
      const types = await history(api, token, id);
      expect(types.filter((t) => t === 'VerificationStarted')).toHaveLength(1);
      expect(types.filter((t) => t === 'VerificationCompleted')).toHaveLength(1);
    }

    // The engine's holder dies without a word: its lock goes with its connection, a worker takes over.
    await first.kill();
    const worker = await start('worker');
    const workerHealth = await worker.call('GET', '/health');
    expect(workerHealth.status).toBe(200);
    expect(workerHealth.body).toMatchObject({ role: 'worker', dependencies: { workflows: { status: 'ok', adapter: 'inprocess' }, mail: { status: 'ok' } } });
    await eventually(async () => (await worker.call('GET', '/ready')).status === 200, 'the worker to be ready');
    // No public HTTP on a worker.
    const refused = await worker.call('GET', `/v1/verifications/${ids[0]}`, { token });
    expect(refused.status).toBe(404);
    expect(refused.body.detail).toMatchObject({ error_code: 'NOT_FOUND', message: expect.stringContaining('ROLE=worker') });
    expect(refused.headers.get('x-content-type-options')).toBe('nosniff');
    const method = await worker.call('POST', '/v1/accounts', { json: {} });
    expect([method.status, method.body.detail?.error_code]).toEqual([405, 'METHOD_NOT_ALLOWED']);

    const later = await uploadImage(api.url, token, 'images/rs_sample1.webp', 'd.webp');
    await completed(api, token, later);
    expect((await history(api, token, later)).filter((t) => t === 'VerificationCompleted')).toHaveLength(1);

    // Now a second engine is refused by the worker's lock.
    const again = await runNode(['dist/src/main.js'], { ...env('all'), PORT: '0', LOG_LEVEL: 'warn', PASSWORD_HASH_COST: '10', TEMPORAL_ADDRESS: '', EVENTSTORE_URL: '' });
    expect(again.code).toBe(78);

    expect(await worker.stop()).toBe(0);
    expect(await api.stop()).toBe(0);
  });

  it('halts an engine whose lock connection is lost, says so in health, and lets the next process take over', { timeout: 300_000 }, async () => {
    const t = await startTestService(postgres!, { ROLE: 'all' });
    try {
      const call = client(t.url);
      expect((await call('GET', '/v1/public/health')).body.dependencies.workflows).toEqual({ status: 'ok', adapter: 'inprocess' });
      // The database ends the session holding the engine lock (a failover, an idle-session kill).
      // This database's lock only: suites running beside this one hold the same key on their own databases.
      const ended = await t.service.deps.knex.raw(
        "select pg_terminate_backend(pid) as ended from pg_locks where locktype = 'advisory' and objid = 7316043 and granted and database = (select oid from pg_database where datname = current_database())",
      );
      expect(ended.rows).toEqual([{ ended: true }]);
      const health = await eventually(async () => {
        const answer = await call('GET', '/v1/public/health');
        return answer.body.dependencies.workflows.status === 'down' && answer;
      }, 'health to report the engine down');
      expect(health.status).toBe(503);
      expect(health.body.dependencies.workflows.detail).toContain('lost the in-process engine lock');
      // The lock is free: another process may now run the engine (this one runs nothing any more).
      const next = await startRole({ ROLE: 'all', DATA_DIR: t.dataDir, DATABASE_URL: t.service.deps.config.DATABASE_URL! });
      processes.push(next);
      expect((await next.call('GET', '/v1/public/health')).body.dependencies.workflows).toEqual({ status: 'ok', adapter: 'inprocess' });
      expect(await next.stop()).toBe(0);
    } finally {
      await t.stop();
    }
  });
});
