import { spawn, type ChildProcess } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { client, registerAccount } from '../support/service.js';

/**
 * SIGKILL in the middle of an analysis with the Temporal engine: the workflow stays with the
 * server; the restarted process's worker picks it up (the dead worker's activity is retried
 * after its 30 s heartbeat timeout) and the verification completes once, with no duplicate
 * events. Needs a real server: skipped without TEMPORAL_ADDRESS.
 */
const address = process.env.TEMPORAL_ADDRESS;
const suite = address ? describe : describe.skip;
const title = address
  ? `crash recovery with the Temporal engine (${address})`
  : 'crash recovery with the Temporal engine: SKIPPED, TEMPORAL_ADDRESS is not set (start `temporal server start-dev` and set it to host:port)';

const repo = path.resolve(import.meta.dirname, '../..');
const fixtures = path.resolve(repo, '../shared/fixtures/pairs/canon_eos_30d_cr2');

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** The service as its own OS process, so it can be killed without a chance to clean up. */
async function launch(env: Record<string, string>): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    cwd: repo,
    env: { ...process.env, DATABASE_URL: '', EVENTSTORE_URL: '', LOG_LEVEL: 'warn', PASSWORD_HASH_COST: '10', ...env },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  for (let i = 0; i < 300; i++) {
    const ok = await fetch(`http://127.0.0.1:${env.PORT}/v1/public/health`).then((r) => r.ok, () => false);
    if (ok) return child;
    await new Promise((r) => setTimeout(r, 200));
  }
  child.kill('SIGKILL');
  throw new Error('service did not start');
}

suite(title, () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'pv-temporal-crash-'));
  const children: ChildProcess[] = [];
  afterAll(async () => {
    for (const child of children) child.kill('SIGKILL');
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('completes a verification once after SIGKILL in the middle of its analysis', async () => {
    const port = String(await freePort());
    const env = { PORT: port, DATA_DIR: dataDir, TEMPORAL_ADDRESS: address!, TEMPORAL_TASK_QUEUE: `pv-crash-${crypto.randomUUID()}` };
    children.push(await launch(env));
    const call = client(`http://127.0.0.1:${port}`);
    const { token } = await registerAccount(call);
    const form = new FormData();
    form.append('image', new Blob([new Uint8Array(fs.readFileSync(path.join(fixtures, 'IMG_5952.camera-preview.jpg')))]), 'IMG_5952.jpg');
    form.append('raw', new Blob([new Uint8Array(fs.readFileSync(path.join(fixtures, 'IMG_5952.CR2')))]), 'IMG_5952.CR2');
    const created = await fetch(`http://127.0.0.1:${port}/v1/verifications/`, { method: 'POST', headers: { authorization: `Bearer ${token}` }, body: form });
    expect(created.status).toBe(201);
    const { id } = await created.json();

    let status = '';
    for (let i = 0; i < 400 && status !== 'in_progress'; i++) {
      status = (await call('GET', `/v1/verifications/${id}`, { token })).body.status;
      if (status !== 'in_progress') await new Promise((r) => setTimeout(r, 10));
    }
    expect(status).toBe('in_progress');
    children[0]!.kill('SIGKILL');
    await new Promise((resolve) => children[0]!.once('exit', resolve));

    const restarted = Date.now();
    children.push(await launch(env));
    let final: any;
    for (let i = 0; i < 600; i++) {
      final = (await call('GET', `/v1/verifications/${id}`, { token })).body;
      if (final.status === 'completed' || final.status === 'failed') break;
      await new Promise((r) => setTimeout(r, 200));
    }
    console.info(`[temporal crash] completed ${Date.now() - restarted} ms after the restart`);
    expect(final).toMatchObject({ status: 'completed', assurance_level: 'verified' });

    const history = await call('GET', `/v1/audit/streams/verification-${id}`, { token });
    const count = (type: string) => history.body.events.filter((e: { type: string }) => e.type === type).length;
    expect(count('VerificationQueued')).toBe(1);
    expect(count('VerificationStarted')).toBe(1);
    expect(count('AnalysisRecorded')).toBe(8);
    expect(count('VerificationGraded')).toBe(1);
    expect(count('VerificationCompleted')).toBe(1);
    const kinds = history.body.events.filter((e: { type: string }) => e.type === 'RenditionStored').map((e: { data: { kind: string } }) => e.data.kind);
    expect(kinds.length).toBe(new Set(kinds).size);
    expect(final.results).toHaveLength(8);
  }, 180_000);
});
