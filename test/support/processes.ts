import { spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';
import { allocatorEnv } from '../../src/core/allocator.js';

const repo = path.resolve(import.meta.dirname, '../..');

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
  return runInRepo(process.execPath, args, env);
}

/** Runs `command` in the repository with this environment and `env`, collecting its output (asynchronously). */
export function runInRepo(command: string, args: string[], env: Record<string, string | undefined>): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: repo, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
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
