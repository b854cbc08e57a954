/**
 * The command path, one verification at a time (part of `npm run bench`; alone:
 * `npx tsx bench/command-path.ts [pglite|postgres]`): sequential image-only uploads of a 64x64
 * PNG to the compiled service (`node dist/src/main.js`, its own process, in-process workflows), each
 * timed from the POST leaving the client until a GET polled every 2 ms reads `completed`. The
 * work itself (C2PA read and thumbnail of a 64x64 PNG) is ~2 ms: the rest is the service's
 * machinery (upload, appends, projection passes, workflow steps). Target: < 30 ms.
 *
 * Beside it, the service process's CPU time per verification (/proc, a second pass of as many
 * uploads polled every 100 ms): on a loaded machine the wall time moves with the load several
 * times over, the CPU time much less (D-061).
 *
 * Also counted, in-process (the same build's `startService`, in-memory PGlite): the database
 * queries one verification costs, from the POST until the read models include its completion.
 *
 * `BENCH_COMPARE=<dir of another checkout, built>` runs that checkout's service alternately with
 * this one, round by round (each round a fresh database for each), and reports the ratio: the
 * machine is shared, so only figures measured in the same window compare. PostgreSQL runs only
 * when DATABASE_URL is set, in databases of its own (`pv_cmdpath_*`, dropped afterwards).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import knexFactory from 'knex';
import sharp from 'sharp';
import { allocatorEnv } from '../src/core/allocator.js';
import { freePort, freshToken, json } from './client.js';
import { median } from './figures.js';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const UPLOADS = Number(process.env.BENCH_COMMAND_PATH_UPLOADS ?? 30);
const ROUNDS = Number(process.env.BENCH_COMMAND_PATH_ROUNDS ?? 3);
const WARM_UP = 5;
const POLL_MS = 2;

const load1 = () => Number(os.loadavg()[0]!.toFixed(2));
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const smallPng = await sharp({ create: { width: 64, height: 64, channels: 3, background: { r: 200, g: 120, b: 40 } } }).png().toBuffer();

function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}

/** `dir`'s compiled service on its own port, until health answers. */
async function startService(dir: string, env: Record<string, string>): Promise<{ url: string; pid: number; stop: () => Promise<void> }> {
  const port = await freePort();
  const child = spawn(process.execPath, [path.join(dir, 'dist/src/main.js')], {
    cwd: dir,
    env: { ...process.env, ...allocatorEnv, EVENTSTORE_URL: '', TEMPORAL_ADDRESS: '', HOST: '127.0.0.1', PORT: String(port), LOG_LEVEL: 'warn', PASSWORD_HASH_COST: '10', ...env },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const url = `http://127.0.0.1:${port}`;
  for (const t0 = performance.now(); ; await sleep(100)) {
    if (child.exitCode !== null) throw new Error('the service exited before it answered');
    if (await fetch(`${url}/v1/public/health`).then((r) => r.arrayBuffer().then(() => r.ok), () => false)) break;
    if (performance.now() - t0 > 300_000) throw new Error('the service did not become healthy');
  }
  return { url, pid: child.pid!, stop: () => stopChild(child) };
}

/** CPU time (user + system) the process `pid` has used, in ms (Linux: /proc, clock ticks of 10 ms). */
function cpuMs(pid: number): number {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10; // utime, stime
}

/**
 * One upload: ms until the POST answered, until a poll (every `pollMs`) read `completed`, and
 * until the completion was recorded (the verification's `updated_at`, the completion event's own
 * time on the same machine clock, as bench/e2e.ts reads it): free of the poll's granularity and
 * of the polls' own load on the service.
 */
async function oneVerification(url: string, token: string, n: number, pollMs = POLL_MS): Promise<{ post: number; completed: number; recorded: number }> {
  const auth = { authorization: `Bearer ${token}` };
  const form = new FormData();
  form.append('image', new Blob([new Uint8Array(smallPng)], { type: 'image/png' }), `path-${n}.png`);
  const wallStart = Date.now();
  const t0 = performance.now();
  const { id } = await json(await fetch(`${url}/v1/verifications/`, { method: 'POST', headers: auth, body: form }));
  const post = performance.now() - t0;
  for (;;) {
    const v = await json(await fetch(`${url}/v1/verifications/${id}`, { headers: auth }));
    if (v.status === 'completed') return { post, completed: performance.now() - t0, recorded: Date.parse(v.updated_at) - wallStart };
    if (v.status === 'failed') throw new Error(`verification ${id} failed: ${v.failure_reason}`);
    if (performance.now() - t0 > 60_000) throw new Error(`verification ${id} did not complete within a minute`);
    await sleep(pollMs);
  }
}

interface Series {
  post_median_ms: number;
  completed_median_ms: number;
  completed_min_ms: number;
  completed_p90_ms: number;
  load_average: number;
  /** The service process's CPU per verification, in a second pass polled every 100 ms (a few polls included). */
  service_cpu_ms_per_verification: number;
  /** POST to the completion event's time, in that second pass (polls every 100 ms barely load the service). */
  recorded_median_ms: number;
}

/** A fresh database for `dir`'s service, WARM_UP uploads, then UPLOADS timed ones. */
async function series(dir: string, kind: 'pglite' | 'postgres', label: string): Promise<Series> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'pv-cmdpath-'));
  let env: Record<string, string> = { DATABASE_URL: '', DATA_DIR: dataDir };
  let dropDatabase = async () => {};
  if (kind === 'postgres') {
    const admin = knexFactory({ client: 'pg', connection: process.env.DATABASE_URL!, pool: { min: 0, max: 1 } });
    const name = `pv_cmdpath_${label}`;
    await admin.raw(`drop database if exists ${name}`);
    await admin.raw(`create database ${name}`);
    const target = new URL(process.env.DATABASE_URL!);
    target.pathname = `/${name}`;
    env = { DATABASE_URL: target.toString(), DATA_DIR: dataDir };
    dropDatabase = async () => {
      await admin.raw(`drop database if exists ${name} with (force)`);
      await admin.destroy();
    };
  }
  const service = await startService(dir, env);
  try {
    const token = await freshToken(service.url, 'cmdpath');
    for (let i = 0; i < WARM_UP; i++) await oneVerification(service.url, token, -i);
    const before = load1();
    const runs: { post: number; completed: number }[] = [];
    for (let i = 0; i < UPLOADS; i++) runs.push(await oneVerification(service.url, token, i));
    const completed = runs.map((r) => r.completed).sort((a, b) => a - b);
    // Wall times move with the machine's load; the service's CPU per verification much less.
    const cpuBefore = cpuMs(service.pid);
    const recorded: number[] = [];
    for (let i = 0; i < UPLOADS; i++) recorded.push((await oneVerification(service.url, token, UPLOADS + i, 100)).recorded);
    const cpu = (cpuMs(service.pid) - cpuBefore) / UPLOADS;
    return {
      post_median_ms: median(runs.map((r) => r.post)),
      completed_median_ms: median(completed),
      completed_min_ms: Math.round(completed[0]! * 10) / 10,
      completed_p90_ms: Math.round(completed[Math.floor(completed.length * 0.9)]! * 10) / 10,
      load_average: Number(((before + load1()) / 2).toFixed(2)),
      service_cpu_ms_per_verification: Math.round(cpu * 10) / 10,
      recorded_median_ms: median(recorded),
    };
  } finally {
    await service.stop();
    await dropDatabase();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

/** Queries per verification of `dir`'s build, counted through knex's `query` event in-process. */
async function queriesPerVerification(dir: string): Promise<number[]> {
  const { startService: start } = await import(path.join(dir, 'dist/src/service.js'));
  const { loadConfig } = await import(path.join(dir, 'dist/src/core/config.js'));
  const { pino } = await import('pino');
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'pv-cmdpath-q-'));
  const config = loadConfig({ PORT: '0', HOST: '127.0.0.1', DATA_DIR: dataDir, PASSWORD_HASH_COST: '10', LOG_LEVEL: 'silent', DATABASE_URL: '', EVENTSTORE_URL: '', TEMPORAL_ADDRESS: '' });
  const service = await start(config, { logger: pino({ level: 'silent' }), inMemoryDatabase: true });
  try {
    const token = await freshToken(service.url, 'cmdpath');
    let queries = 0;
    service.deps.knex.on('query', () => queries++);
    const counts: number[] = [];
    for (let i = 0; i < 5; i++) {
      const form = new FormData();
      form.append('image', new Blob([new Uint8Array(smallPng)], { type: 'image/png' }), `q-${i}.png`);
      queries = 0;
      await json(await fetch(`${service.url}/v1/verifications/`, { method: 'POST', headers: { authorization: `Bearer ${token}` }, body: form }));
      await service.deps.workflows.idle();
      await service.deps.readModels.waitFor(await service.deps.store.headPosition(), 30_000);
      counts.push(queries - 1); // less the bench's own head query
    }
    return counts;
  } finally {
    await service.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

export async function benchCommandPath(kinds: ('pglite' | 'postgres')[] = ['pglite', 'postgres']): Promise<Record<string, unknown>> {
  const compare = process.env.BENCH_COMPARE ? path.resolve(process.env.BENCH_COMPARE) : undefined;
  const variants: [string, string][] = compare ? [['this', repo], ['compare', compare]] : [['this', repo]];
  const report: Record<string, unknown> = {
    what: `${UPLOADS} sequential image-only uploads of a 64x64 PNG per series after ${WARM_UP} warm-up ones, POST until a GET polled every ${POLL_MS} ms reads completed; compiled service, in-process workflows, a fresh database per series`,
    target_ms: 30,
    ...(compare ? { compare } : {}),
  };
  report.queries_per_verification = Object.fromEntries(await Promise.all(variants.map(async ([label, dir]) => [label, await queriesPerVerification(dir)])));
  for (const kind of kinds) {
    if (kind === 'postgres' && !process.env.DATABASE_URL) {
      report[kind] = { skipped: 'DATABASE_URL is not set' };
      continue;
    }
    const rounds: Record<string, Series>[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const results: Record<string, Series> = {};
      // Alternate which goes first, so neither always runs right after the other's burst.
      for (const [label, dir] of round % 2 ? [...variants].reverse() : variants) results[label] = await series(dir, kind, label);
      if (compare) {
        const ratio = (key: keyof Series) => Math.round(((results.this![key] as number) / (results.compare![key] as number)) * 100) / 100;
        Object.assign(results, { ratio_completed_median: ratio('completed_median_ms'), ratio_completed_min: ratio('completed_min_ms'), ratio_service_cpu: ratio('service_cpu_ms_per_verification'), ratio_recorded_median: ratio('recorded_median_ms') });
      }
      rounds.push(results);
      process.stderr.write(`[command-path] ${kind} round ${round + 1}: ${JSON.stringify(results)}\n`);
    }
    report[kind] = rounds;
  }
  return report;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const kinds = (process.argv[2] ? [process.argv[2]] : ['pglite', 'postgres']) as ('pglite' | 'postgres')[];
  console.log(JSON.stringify(await benchCommandPath(kinds), null, 2));
}
