import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { expect } from 'vitest';
import { allocatorEnv } from '../../src/core/allocator.js';
import { client, registerAccount } from './service.js';

const repo = path.resolve(import.meta.dirname, '../..');
const pair = path.resolve(repo, '../shared/fixtures/pairs/canon_eos_30d_cr2');

export async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

export interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs Node with `args` in the repository (asynchronously: a service in this process keeps answering). */
export function runNode(args: string[], env: Record<string, string | undefined>): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { cwd: repo, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** The service as its own OS process, so it can be killed without a chance to clean up. */
export async function launchService(env: Record<string, string>, options: { mayDie?: boolean } = {}): Promise<ChildProcess> {
  // The compiled service, as `npm start` runs it, allocator settings included (test/support/build.ts builds dist/ before the suites).
  const child = spawn(process.execPath, ['dist/src/main.js'], {
    cwd: repo,
    env: { ...process.env, ...allocatorEnv, DATABASE_URL: '', EVENTSTORE_URL: '', TEMPORAL_ADDRESS: '', LOG_LEVEL: 'warn', PASSWORD_HASH_COST: '10', ...env },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  for (let i = 0; i < 300; i++) {
    // A failpoint (CRASH_AT) may kill it while it resumes work, before it answers.
    if (options.mayDie && (child.exitCode !== null || child.signalCode !== null)) return child;
    const ok = await fetch(`http://127.0.0.1:${env.PORT}/v1/public/health`).then((r) => r.ok, () => false);
    if (ok) return child;
    await new Promise((r) => setTimeout(r, 200));
  }
  child.kill('SIGKILL');
  throw new Error('service did not start');
}

/**
 * Uploads the 30D pair, SIGKILLs the service as soon as the analysis is in progress, starts it
 * again on the same state and checks the verification completes once with no duplicate events.
 * Returns how long completion took after the restart.
 */
export async function expectCompletionOnceAfterKill(env: Record<string, string>, children: ChildProcess[], maxWaitMs: number): Promise<number> {
  children.push(await launchService(env));
  const call = client(`http://127.0.0.1:${env.PORT}`);
  const { token } = await registerAccount(call);
  const form = new FormData();
  form.append('image', new Blob([new Uint8Array(fs.readFileSync(path.join(pair, 'IMG_5952.camera-preview.jpg')))]), 'IMG_5952.jpg');
  form.append('raw', new Blob([new Uint8Array(fs.readFileSync(path.join(pair, 'IMG_5952.CR2')))]), 'IMG_5952.CR2');
  const created = await fetch(`http://127.0.0.1:${env.PORT}/v1/verifications/`, { method: 'POST', headers: { authorization: `Bearer ${token}` }, body: form });
  expect(created.status).toBe(201);
  const { id } = await created.json();

  let status = '';
  for (let i = 0; i < 400 && status !== 'in_progress'; i++) {
    status = (await call('GET', `/v1/verifications/${id}`, { token })).body.status;
    if (status !== 'in_progress') await new Promise((r) => setTimeout(r, 10));
  }
  expect(status).toBe('in_progress');
  const first = children.at(-1)!;
  first.kill('SIGKILL');
  await new Promise((resolve) => first.once('exit', resolve));

  const restarted = Date.now();
  children.push(await launchService(env));
  let final: any;
  for (let i = 0; i < maxWaitMs / 200; i++) {
    final = (await call('GET', `/v1/verifications/${id}`, { token })).body;
    if (final.status === 'completed' || final.status === 'failed') break;
    await new Promise((r) => setTimeout(r, 200));
  }
  const elapsed = Date.now() - restarted;
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
  return elapsed;
}
