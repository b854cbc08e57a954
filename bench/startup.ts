/**
 * Start-up figures (part of `npm run bench`; alone: `npx tsx bench/startup.ts`), each as
 * median/min/max over several runs, with the 1-minute load average beside it and as a ratio
 * against a reference measured in the same run: a bare `node -e` process that starts a
 * `node:http` server and answers one request. The ratio is what to compare across machines.
 *
 * - cold: `node dist/src/main.js` on a fresh DATA_DIR (PGlite creates its cluster) until
 *   `GET /v1/public/health` answers 200;
 * - warm: the same on an existing DATA_DIR;
 * - npm start, warm: what `npm start` adds (npm itself and the `prestart` no-op build);
 * - CLI: `node bin/photoverify.mjs --help` until it exits.
 *
 * Every series runs the compiled service (dist/): the build is refreshed first.
 */
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { allocatorEnv } from '../src/core/allocator.js';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const POLL_MS = 10;
const LIMIT_MS = 180_000;

interface Series {
  runs: number;
  median_ms: number;
  min_ms: number;
  max_ms: number;
  all_ms: number[];
  /** 1/5/15-minute load averages when the series started and when it ended. */
  load_average: { before: string; after: string };
  ratio_to_reference?: number;
  target_ms?: number;
}

const loadAverage = () => os.loadavg().map((l) => l.toFixed(2)).join(' ');

function series(all: number[], loadBefore: string): Series {
  const sorted = [...all].sort((a, b) => a - b);
  return {
    runs: all.length,
    median_ms: sorted[sorted.length >> 1]!,
    min_ms: sorted[0]!,
    max_ms: sorted.at(-1)!,
    all_ms: all,
    load_average: { before: loadBefore, after: loadAverage() },
  };
}

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** Spawns `command`, polls `url` until it answers 200, returns the elapsed ms, then interrupts it. */
async function timeToHealthy(command: string, args: string[], env: Record<string, string>, url: (port: number) => string): Promise<number> {
  const port = await freePort();
  const t0 = performance.now();
  const child = spawn(command, args, { cwd: repo, env: { ...process.env, ...env, PORT: String(port) }, stdio: ['ignore', 'ignore', 'inherit'], detached: true });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let gone = false;
  void exited.then(() => (gone = true));
  try {
    for (;;) {
      const ok = await fetch(url(port)).then(
        async (r) => {
          await r.arrayBuffer();
          return r.status === 200;
        },
        () => false,
      );
      if (ok) return Math.round(performance.now() - t0);
      if (gone) throw new Error(`${command} ${args.join(' ')} exited before it answered`);
      if (performance.now() - t0 > LIMIT_MS) throw new Error(`${command} ${args.join(' ')} did not answer within ${LIMIT_MS} ms`);
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
  } finally {
    try {
      process.kill(-child.pid!, 'SIGINT');
    } catch {
      // already gone (the reference exits after its one answer)
    }
    await exited;
  }
}

function timeToExit(command: string, args: string[]): number {
  const t0 = performance.now();
  const result = spawnSync(command, args, { cwd: repo, stdio: ['ignore', 'ignore', 'inherit'] });
  if (result.status !== 0) throw new Error(`${command} ${args.join(' ')} exited ${result.status}`);
  return Math.round(performance.now() - t0);
}

const reference = `require('node:http').createServer((q, s) => { s.end('ok'); q.socket.server.close(); }).listen(+process.env.PORT, '127.0.0.1')`;
const serviceEnv = (dataDir: string) => ({ ...allocatorEnv, DATA_DIR: dataDir, HOST: '127.0.0.1', DATABASE_URL: '', EVENTSTORE_URL: '', TEMPORAL_ADDRESS: '', LOG_LEVEL: 'warn' });
const health = (port: number) => `http://127.0.0.1:${port}/v1/public/health`;

export async function benchStartup(options: { coldRuns?: number; warmRuns?: number; quickRuns?: number } = {}): Promise<Record<string, unknown>> {
  const { coldRuns = 3, warmRuns = 5, quickRuns = 10 } = options;
  const build = spawnSync(process.execPath, [path.join(repo, 'node_modules/@typescript/native/bin/tsc'), '-b', 'tsconfig.build.json'], { cwd: repo, encoding: 'utf8' });
  // Exit 2: type errors, every file still written (someone's work in progress); 1 or worse: no build.
  if (build.status === 2) process.stderr.write(`[startup] dist/ built with type errors:\n${build.stdout}${build.stderr}\n`);
  else if (build.status !== 0) throw new Error(`build failed:\n${build.stdout}${build.stderr}`);

  const times = async (runs: number, once: () => Promise<number> | number) => {
    const before = loadAverage();
    const all: number[] = [];
    for (let i = 0; i < runs; i++) all.push(await once());
    return series(all, before);
  };
  const ref = await times(quickRuns, () => timeToHealthy(process.execPath, ['-e', reference], {}, (port) => `http://127.0.0.1:${port}/`));

  const dirs: string[] = [];
  const freshDir = () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pv-bench-start-'));
    dirs.push(dir);
    return dir;
  };
  try {
    const cold = await times(coldRuns, () => timeToHealthy(process.execPath, ['dist/src/main.js'], serviceEnv(freshDir()), health));
    const warmDir = dirs[0]!;
    const warm = await times(warmRuns, () => timeToHealthy(process.execPath, ['dist/src/main.js'], serviceEnv(warmDir), health));
    const npmWarm = await times(Math.min(warmRuns, 3), () => timeToHealthy('npm', ['start', '--silent'], serviceEnv(warmDir), health));
    const cliHelp = await times(quickRuns, () => timeToExit(process.execPath, ['bin/photoverify.mjs', '--help']));
    const ratio = (s: Series, target?: number): Series => ({ ...s, ratio_to_reference: Math.round((s.median_ms / ref.median_ms) * 10) / 10, ...(target ? { target_ms: target } : {}) });
    return {
      what: 'spawn to the first 200 (service: GET /v1/public/health; PGlite, in-process workflows) or to exit (CLI); load averages (1/5/15 min) before and after each series',
      cores: os.cpus().length,
      reference_node_http: ref,
      cold_start_fresh_data_dir: ratio(cold, 3000),
      warm_start_existing_data_dir: ratio(warm, 1500),
      npm_start_warm: ratio(npmWarm),
      cli_help: ratio(cliHelp, 300),
    };
  } finally {
    for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  // BENCH_STARTUP_RUNS: every series that many runs (the smoke test's small N).
  const runs = process.env.BENCH_STARTUP_RUNS ? Number(process.env.BENCH_STARTUP_RUNS) : undefined;
  console.log(JSON.stringify(await benchStartup(runs ? { coldRuns: runs, warmRuns: runs, quickRuns: runs } : {}), null, 2));
}
