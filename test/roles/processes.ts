import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { allocatorEnv } from '../../src/core/allocator.js';
import type { DatabaseTarget } from '../support/databases.js';
import { waitFor } from '../support/poll.js';
import { client } from '../support/service.js';
import { freePort } from '../support/processes.js';

const repo = path.resolve(import.meta.dirname, '../..');

/** No wall-clock expectations: a start on a loaded machine (a Temporal worker bundles its workflows) can take long. */
const START_LIMIT_MS = 180_000;

export interface RoleProcess {
  child: ChildProcess;
  url: string;
  call: ReturnType<typeof client>;
  /** Everything it wrote to stderr (warnings and errors; LOG_LEVEL=warn). */
  stderr(): string;
  /** SIGTERM, and its exit code once it has drained. */
  stop(): Promise<number | null>;
  /** SIGKILL: no drain, no cleanup, as a power cut. */
  kill(): Promise<void>;
}

/** The compiled service (dist/, as `npm start` runs it) as its own OS process with `env`, once it answers health. */
export async function startRole(env: Record<string, string>): Promise<RoleProcess> {
  const port = await freePort();
  const child = spawn(process.execPath, ['dist/src/main.js'], {
    cwd: repo,
    env: { ...process.env, ...allocatorEnv, DATABASE_URL: '', EVENTSTORE_URL: '', TEMPORAL_ADDRESS: '', LOG_LEVEL: 'warn', PASSWORD_HASH_COST: '10', PORT: String(port), ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (chunk) => (stderr += chunk));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + START_LIMIT_MS;
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`${env.ROLE ?? 'all'} process exited at start (${child.exitCode}):\n${stderr}`);
    if (await fetch(`${url}/v1/public/health`).then((r) => r.ok, () => false)) break;
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`${env.ROLE ?? 'all'} process did not answer health:\n${stderr}`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  return {
    child,
    url,
    call: client(url),
    stderr: () => stderr,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      return exited;
    },
    async kill() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
    },
  };
}

/** Polls `read` until it returns something truthy (bounded generously, never a timing assertion). */
export const eventually = <T>(read: () => Promise<T | undefined | false>, what: string, limitMs = 180_000): Promise<T> => waitFor(read, what, { timeoutMs: limitMs, everyMs: 200 });

/**
 * Role processes of one suite on a scratch PostgreSQL database of `postgres` and one data
 * directory (call inside the `describe`): `env(role)` is a process's environment (with `extra`,
 * e.g. the Temporal address), `start` runs one, and every process in `processes` is killed after
 * the suite, before the database and the directory go.
 */
export function roleProcesses(postgres: DatabaseTarget, name: string, extra: () => Record<string, string> = () => ({})) {
  let scratch: { url: string | undefined; drop(): Promise<void> } | undefined;
  let dataDir: string | undefined;
  const processes: RoleProcess[] = [];
  const env = (role: string): Record<string, string> => ({ ROLE: role, DATA_DIR: dataDir!, DATABASE_URL: scratch!.url!, ...extra() });
  const start = async (role: string) => {
    const started = await startRole(env(role));
    processes.push(started);
    return started;
  };
  beforeAll(async () => {
    scratch = await postgres.scratchUrl();
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), `pv-roles-${name}-`));
  });
  afterAll(async () => {
    for (const p of processes) await p.kill();
    await scratch?.drop();
    if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
  });
  return { env, start, processes };
}
