import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, expect } from 'vitest';
import type { DatabaseTarget } from './databases.js';
import { freePort, launchService } from './processes.js';
import { client, registerAccount } from './service.js';

const pair = path.resolve(import.meta.dirname, '../../../shared/fixtures/pairs/canon_eos_30d_cr2');

/** How long a process started with a failpoint (CRASH_AT) has to reach it and kill itself. */
const FAILPOINT_WAIT_MS = 3 * 60_000;

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The signal that ended `child` (null if it exited on its own), at once if it has already ended. */
export function exited(child: ChildProcess): Promise<NodeJS.Signals | null> {
  return new Promise((resolve) => (child.exitCode !== null || child.signalCode !== null ? resolve(child.signalCode) : child.once('exit', (_code, signal) => resolve(signal))));
}

/** How `child` ended within `ms`: its signal, null for an exit of its own, 'timeout' if it still runs. */
async function endedWithin(child: ChildProcess, ms: number): Promise<NodeJS.Signals | null | 'timeout'> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), ms)));
  try {
    return await Promise.race([exited(child), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

export interface CrashWorld {
  /** The data directory the service's processes share (removed after the suite). */
  dataDir: string;
  /** PORT, DATA_DIR and DATABASE_URL for the service: a free port, the data directory and a scratch database made on the first call (empty on PGlite, which lives in the data directory). */
  env(): Promise<{ PORT: string; DATA_DIR: string; DATABASE_URL: string }>;
  /** The service as its own process (launchService), SIGKILLed after the suite if it still runs. */
  launch(env: Record<string, string>, options?: { mayDie?: boolean }): Promise<ChildProcess>;
  /** Sends `signal` to `child` and waits until it has ended. */
  stop(child: ChildProcess, signal: NodeJS.Signals): Promise<void>;
  /** Expects `child` to be killed by its failpoint (SIGKILL) within 3 minutes; `point` names it in the failure. */
  killedAt(child: ChildProcess, point: string): Promise<void>;
  /** Whether `child` was killed by its failpoint (SIGKILL) within `ms`; if not, it is SIGKILLed here before the answer. */
  reachedFailpoint(child: ChildProcess, ms?: number): Promise<boolean>;
}

/**
 * The set-up of a suite that kills the service's processes: a data directory and (on `target`, when
 * given) a scratch database that outlive them, and an afterAll that kills what still runs, drops
 * the database and removes the directory. Call it in the describe body; `prefix` names the
 * directory under the system's temporary one.
 */
export function crashWorld(target: DatabaseTarget | undefined, prefix: string): CrashWorld {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  const children: ChildProcess[] = [];
  let drop = async () => {};
  afterAll(async () => {
    for (const child of children) child.kill('SIGKILL');
    await drop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  let env: ReturnType<CrashWorld['env']> | undefined;
  const world: CrashWorld = {
    dataDir,
    env: () =>
      (env ??= (async () => {
        const scratch = target ? await target.scratchUrl() : { url: undefined, drop: async () => {} };
        drop = scratch.drop;
        return { PORT: String(await freePort()), DATA_DIR: dataDir, DATABASE_URL: scratch.url ?? '' };
      })()),
    async launch(serviceEnv, options) {
      const child = await launchService(serviceEnv, options);
      children.push(child);
      return child;
    },
    async stop(child, signal) {
      const died = exited(child);
      child.kill(signal);
      await died;
    },
    async killedAt(child, point) {
      expect(await endedWithin(child, FAILPOINT_WAIT_MS), `${point}: the process was not killed by its failpoint`).toBe('SIGKILL');
    },
    async reachedFailpoint(child, ms = FAILPOINT_WAIT_MS) {
      if ((await endedWithin(child, ms)) === 'SIGKILL') return true;
      await world.stop(child, 'SIGKILL');
      return false;
    },
  };
  return world;
}

/**
 * Uploads the 30D pair, SIGKILLs the service as soon as the analysis is in progress, starts it
 * again on the same state and checks the verification completes once with no duplicate events.
 * Returns how long completion took after the restart.
 */
export async function expectCompletionOnceAfterKill(world: CrashWorld, env: Record<string, string>, maxWaitMs: number): Promise<number> {
  const first = await world.launch(env);
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
    if (status !== 'in_progress') await sleep(10);
  }
  expect(status).toBe('in_progress');
  await world.stop(first, 'SIGKILL');

  const restarted = Date.now();
  await world.launch(env);
  let final: any;
  for (let i = 0; i < maxWaitMs / 200; i++) {
    final = (await call('GET', `/v1/verifications/${id}`, { token })).body;
    if (final.status === 'completed' || final.status === 'failed') break;
    await sleep(200);
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
