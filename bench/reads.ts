/**
 * The list and search reads of bench/service.ts alone, against an already seeded data directory,
 * for interleaved A/B runs of two builds (`npx tsx bench/reads.ts <data-dir> [<repo> ...]`):
 * each round starts each build's compiled service (`<repo>/dist/src/main.js`) on its own copy of the
 * data (`<data-dir>` for the first, `<data-dir>-<i>` for the i-th next, as `cp -a` made them:
 * a run writes into its directory), runs `wrk -t2 -c10` (and -c1) for BENCH_WRK_SECONDS on the
 * list and the search (BENCH_SCENARIOS: list, search, list1, search1, get), and stops it.
 * Rounds: BENCH_ROUNDS (default 3). The 1-minute load
 * average is printed beside every figure. The account is bench/service.ts's. With
 * BENCH_DATABASE_URL the services use that PostgreSQL database (a copy of bench/service.ts's:
 * `createdb -T pv_bench_reads <name>`) and `<data-dir>` only for their files.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { allocatorEnv } from '../src/core/allocator.js';
import { freePort } from './client.js';

const WRK_SECONDS = Number(process.env.BENCH_WRK_SECONDS ?? 10);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const SCENARIOS = (process.env.BENCH_SCENARIOS ?? 'list,search,list1,search1').split(',');
const [dataDir, ...repos] = process.argv.slice(2);
if (!dataDir) throw new Error('usage: tsx bench/reads.ts <seeded data dir> [<repo> ...]');
if (repos.length === 0) repos.push(path.resolve(import.meta.dirname, '..'));

const load1 = () => os.loadavg()[0]!.toFixed(2);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function start(repo: string, dir: string): Promise<{ url: string; child: ChildProcess }> {
  const port = await freePort();
  const child = spawn(process.execPath, [...(process.env.BENCH_NODE_ARGS?.split(' ').filter(Boolean) ?? []), 'dist/src/main.js'], {
    cwd: repo,
    env: { ...process.env, ...allocatorEnv, DATABASE_URL: process.env.BENCH_DATABASE_URL ?? '', DATA_DIR: dir, EVENTSTORE_URL: '', TEMPORAL_ADDRESS: '', HOST: '127.0.0.1', PORT: String(port), LOG_LEVEL: 'info', PASSWORD_HASH_COST: '10' },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const url = `http://127.0.0.1:${port}`;
  for (const t0 = performance.now(); ; await sleep(200)) {
    if (child.exitCode !== null) throw new Error('the service exited before it answered');
    if (await fetch(`${url}/v1/public/health`).then((r) => r.arrayBuffer().then(() => r.ok), () => false)) return { url, child };
    if (performance.now() - t0 > 300_000) throw new Error('the service did not become healthy');
  }
}

const stop = (child: ChildProcess) => new Promise<void>((resolve) => (child.exitCode !== null ? resolve() : (child.once('exit', () => resolve()), child.kill('SIGTERM'))));

async function token(url: string): Promise<string> {
  const r = await fetch(`${url}/v1/accounts/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: 'bench-reads@example.eu', password: 'a long enough password' }) });
  if (!r.ok) throw new Error(`login: HTTP ${r.status} ${await r.text()}`);
  return (await r.json()).access_token;
}

const script = path.join(os.tmpdir(), `pv-reads-wrk-${process.pid}.lua`);
fs.writeFileSync(script, 'done = function(s, l) io.write(string.format("\\nJSON %d %d %d %d %d\\n", s.requests, s.duration, l:percentile(50), l:percentile(95), s.errors.status + s.errors.connect + s.errors.read + s.errors.timeout)) end\n');

function wrk(url: string, auth: string, connections: number, seconds = WRK_SECONDS): string {
  const before = load1();
  const run = spawnSync('wrk', [`-t${Math.min(2, connections)}`, `-c${connections}`, `-d${seconds}s`, '--timeout', '10s', '-s', script, '-H', `authorization: Bearer ${auth}`, url], { encoding: 'utf8' });
  const line = run.stdout.split('\n').find((l) => l.startsWith('JSON '));
  if (!line) throw new Error(`wrk said:\n${run.stdout}${run.stderr}`);
  const [requests, duration, p50, p95, errors] = line.slice(5).split(' ').map(Number) as [number, number, number, number, number];
  return `${Math.round(requests / (duration / 1e6))} req/s p50 ${(p50 / 1000).toFixed(1)} p95 ${(p95 / 1000).toFixed(1)} ms${errors ? ` ERR ${errors}` : ''} (load ${before}→${load1()})`;
}

const paths: Record<string, [string, number]> = {
  list: ['/v1/verifications/?size=20', 10],
  search: ['/v1/verifications/?size=20&search=IMG_04242', 10],
  list1: ['/v1/verifications/?size=20', 1],
  search1: ['/v1/verifications/?size=20&search=IMG_04242', 1],
  // get: GET /v1/verifications/{id} of the newest verification, 10 connections (set per service)
};

for (let round = 1; round <= ROUNDS; round++) {
  for (const [i, repo] of repos.entries()) {
    const { url, child } = await start(repo, i === 0 ? dataDir : `${dataDir}-${i}`);
    try {
      const auth = await token(url);
      const first = await (await fetch(`${url}/v1/verifications/?size=1`, { headers: { authorization: `Bearer ${auth}` } })).json();
      paths.get = [`/v1/verifications/${first.items[0].id}`, 10];
      // Warm-up (caches, prepared statements) past the database maintenance that starts 5 s after
      // opening (adapters/db/database.ts: seconds of the PGlite thread on 100,000 verifications).
      wrk(`${url}${paths.list![0]}`, auth, 10, Number(process.env.BENCH_WARMUP_SECONDS ?? 15));
      for (const name of SCENARIOS) console.log(`round ${round} ${path.basename(repo)} ${name}: ${wrk(`${url}${paths[name]![0]}`, auth, paths[name]![1])}`);
    } finally {
      await stop(child);
    }
  }
}
fs.rmSync(script, { force: true });
