/**
 * Service-side figures (part of `npm run bench`; alone: `npx tsx bench/service.ts [pglite|postgres]`):
 * reads, health, image-only throughput and footprint of the compiled service (`node dist/src/main.js`)
 * run as its own process, loaded with `wrk` on loopback. Every throughput figure is also a ratio
 * against a reference measured in the same run under the same load: a bare `node:http` server
 * answering the same body. The 1-minute load average is recorded beside each figure.
 *
 * The read models hold BENCH_VERIFICATIONS (default 100,000) verifications of one account, seeded
 * through the event log: the event stream of one real image-only verification is appended again
 * for each new verification (fresh ids), and the service's projectors build the read models from
 * those events. A seeded database is kept (PGlite: a directory under the OS temp dir; PostgreSQL:
 * the database `pv_bench_reads` next to DATABASE_URL's, or BENCH_PG_DATABASE) and reused by the next run.
 *
 * Loads with `wrk` (Debian: `apt-get install wrk`); without it, or with BENCH_LOAD_TOOL=node, with
 * keep-alive node:http clients in the bench process (the report's `load_tool` says which: ratios
 * compare within one tool). PostgreSQL runs only when DATABASE_URL is set. Small runs (the smoke
 * test, test/scale/bench-smoke.test.ts): BENCH_VERIFICATIONS, BENCH_SEED_BATCH, BENCH_WRK_SECONDS,
 * BENCH_IMAGE_ONLY, BENCH_IDLE_WAIT_MS, BENCH_DATA_DIR (a fresh directory instead of the kept one).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import knexFactory from 'knex';
import sharp from 'sharp';
import { allocatorEnv } from '../src/core/allocator.js';
import type { NewEvent } from '../src/core/es/event-store.js';
import { freePort } from './client.js';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const SEED = Number(process.env.BENCH_VERIFICATIONS ?? 100_000);
const WRK_SECONDS = Number(process.env.BENCH_WRK_SECONDS ?? 10);
const IMAGE_ONLY_COUNT = Number(process.env.BENCH_IMAGE_ONLY ?? 500);
/** Verification streams per append statement while seeding (6 events each). */
const SEED_BATCH = Number(process.env.BENCH_SEED_BATCH ?? 500);
/** Another name measures a copy (`createdb -T pv_bench_reads <name>`), e.g. a build whose read models differ. */
const PG_DATABASE = process.env.BENCH_PG_DATABASE ?? 'pv_bench_reads';
const PASSWORD = 'a long enough password';

const load1 = () => Number(os.loadavg()[0]!.toFixed(2));
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface WrkResult {
  rps: number;
  p50_ms: number;
  p95_ms: number;
  p99_ms: number;
  /** Socket errors and non-2xx answers (all of the 404 scenario's answers are 404 on purpose). */
  non_2xx_or_socket_errors: number;
  load_average: number;
}

const wrkScript = path.join(os.tmpdir(), 'pv-bench-wrk.lua');
fs.writeFileSync(
  wrkScript,
  `done = function(summary, latency, requests)
  local errors = summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.status + summary.errors.timeout
  io.write(string.format("\\nJSON {\\"requests\\":%d,\\"duration_us\\":%d,\\"p50\\":%d,\\"p95\\":%d,\\"p99\\":%d,\\"errors\\":%d}\\n",
    summary.requests, summary.duration, latency:percentile(50), latency:percentile(95), latency:percentile(99), errors))
end
`,
);

/** Whether `wrk` is installed; without it (or with BENCH_LOAD_TOOL=node) the series run on `nodeLoad`. */
const hasWrk = process.env.BENCH_LOAD_TOOL !== 'node' && !spawnSync('wrk', ['--version']).error;

/** `wrk -t2 -cN` for WRK_SECONDS against one URL; latency percentiles in ms. */
async function wrk(url: string, options: { connections?: number; headers?: Record<string, string>; seconds?: number } = {}): Promise<WrkResult> {
  const { connections = 10, headers = {}, seconds = WRK_SECONDS } = options;
  if (!hasWrk) return nodeLoad(url, { connections, headers, seconds });
  const loadBefore = load1();
  const args = [`-t${Math.min(2, connections)}`, `-c${connections}`, `-d${seconds}s`, '--timeout', '10s', '-s', wrkScript];
  for (const [name, value] of Object.entries(headers)) args.push('-H', `${name}: ${value}`);
  const run = spawnSync('wrk', [...args, url], { encoding: 'utf8' });
  if (run.error) throw new Error(`wrk could not run (apt-get install wrk): ${run.error.message}`);
  const line = run.stdout.split('\n').find((l) => l.startsWith('JSON '));
  if (!line) throw new Error(`wrk said:\n${run.stdout}${run.stderr}`);
  const r = JSON.parse(line.slice(5)) as { requests: number; duration_us: number; p50: number; p95: number; p99: number; errors: number };
  const ms = (us: number) => Math.round(us / 10) / 100;
  return { rps: Math.round(r.requests / (r.duration_us / 1e6)), p50_ms: ms(r.p50), p95_ms: ms(r.p95), p99_ms: ms(r.p99), non_2xx_or_socket_errors: r.errors, load_average: Number(((loadBefore + load1()) / 2).toFixed(2)) };
}

/**
 * The same series without `wrk`: `connections` keep-alive clients in this process, each sending
 * its next request when the last one answered. Slower than wrk (it shares this process's one
 * thread), so its figures are comparable only with its own reference (the `tool` field says which).
 */
async function nodeLoad(url: string, { connections, headers, seconds }: { connections: number; headers: Record<string, string>; seconds: number }): Promise<WrkResult> {
  const http = await import('node:http');
  const agent = new http.Agent({ keepAlive: true, maxSockets: connections });
  const loadBefore = load1();
  const latencies: number[] = [];
  let errors = 0;
  const t0 = performance.now();
  const end = t0 + seconds * 1000;
  const once = () =>
    new Promise<void>((resolve) => {
      const sent = performance.now();
      const request = http.get(url, { agent, headers }, (response) => {
        response.on('data', () => {});
        response.on('end', () => {
          latencies.push(performance.now() - sent);
          if (response.statusCode! < 200 || response.statusCode! >= 300) errors++;
          resolve();
        });
      });
      request.on('error', () => (errors++, resolve()));
    });
  await Promise.all(Array.from({ length: connections }, async () => { while (performance.now() < end) await once(); }));
  const duration = performance.now() - t0;
  agent.destroy();
  const sorted = latencies.sort((a, b) => a - b);
  const at = (p: number) => Math.round((sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))] ?? 0) * 100) / 100;
  return { rps: Math.round(latencies.length / (duration / 1000)), p50_ms: at(50), p95_ms: at(95), p99_ms: at(99), non_2xx_or_socket_errors: errors, load_average: Number(((loadBefore + load1()) / 2).toFixed(2)) };
}

/** A bare node:http server that answers every request with `body` (the reference). */
async function referenceServer(body: string): Promise<{ url: string; stop: () => Promise<void> }> {
  const port = await freePort();
  const file = path.join(os.tmpdir(), `pv-bench-body-${process.pid}.json`);
  fs.writeFileSync(file, body);
  const code = `const b = require('node:fs').readFileSync(${JSON.stringify(file)}); require('node:http').createServer((q, s) => { s.setHeader('content-type', 'application/json; charset=utf-8'); s.end(b); }).listen(${port}, '127.0.0.1', () => console.log('up'))`;
  const child = spawn(process.execPath, ['-e', code], { stdio: ['ignore', 'pipe', 'inherit'] });
  await new Promise<void>((resolve) => child.stdout!.once('data', () => resolve()));
  return { url: `http://127.0.0.1:${port}`, stop: () => stopChild(child) };
}

function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}

interface Running {
  url: string;
  pid: number;
  stop: () => Promise<void>;
}

/** The compiled service as its own process, until GET /v1/public/health answers 200. */
export async function startService(env: Record<string, string>): Promise<Running> {
  const port = await freePort();
  const child = spawn(process.execPath, ['dist/src/main.js'], {
    cwd: repo,
    env: { ...process.env, ...allocatorEnv, EVENTSTORE_URL: '', TEMPORAL_ADDRESS: '', HOST: '127.0.0.1', PORT: String(port), LOG_LEVEL: 'info', PASSWORD_HASH_COST: '10', ...env },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const url = `http://127.0.0.1:${port}`;
  const t0 = performance.now();
  for (;;) {
    if (child.exitCode !== null) throw new Error('the service exited before it answered');
    const ok = await fetch(`${url}/v1/public/health`).then((r) => r.arrayBuffer().then(() => r.ok), () => false);
    if (ok) break;
    if (performance.now() - t0 > 600_000) throw new Error('the service did not become healthy');
    await sleep(100);
  }
  return { url, pid: child.pid!, stop: () => stopChild(child) };
}

export const rssMiB = (pid: number) => Math.round(Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024);

async function json(response: Response): Promise<any> {
  const body = await response.json();
  if (!response.ok) throw new Error(`${response.url}: HTTP ${response.status} ${JSON.stringify(body)}`);
  return body;
}

/** The bench account: created once per database; returns a fresh token. */
async function login(url: string, email: string): Promise<string> {
  const post = (route: string, body: unknown) => fetch(`${url}${route}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const loggedIn = await post('/v1/accounts/login', { email, password: PASSWORD });
  if (loggedIn.ok) return (await loggedIn.json()).access_token;
  await loggedIn.arrayBuffer();
  await json(await post('/v1/accounts', { name: 'Bench', admin: { email, name: 'Bench', password: PASSWORD } }));
  return (await json(await post('/v1/accounts/login', { email, password: PASSWORD }))).access_token;
}

const smallPng = await sharp({ create: { width: 64, height: 64, channels: 3, background: { r: 200, g: 120, b: 40 } } }).png().toBuffer();

async function uploadImageOnly(url: string, token: string, name: string): Promise<string> {
  for (let attempt = 1; ; attempt++) {
    const form = new FormData();
    form.append('image', new Blob([new Uint8Array(smallPng)], { type: 'image/png' }), name);
    try {
      return (await json(await fetch(`${url}/v1/verifications/`, { method: 'POST', headers: { authorization: `Bearer ${token}` }, body: form }))).id;
    } catch (error) {
      // A keep-alive socket the server closed while idle (after the long wrk runs) fails the
      // first write with EPIPE: the request never reached the service, so it is sent again.
      if (attempt >= 3 || !/fetch failed/.test((error as Error).message)) throw error;
    }
  }
}

async function waitCompleted(url: string, token: string, id: string): Promise<any> {
  for (const t0 = performance.now(); performance.now() - t0 < 120_000; await sleep(50)) {
    const v = await json(await fetch(`${url}/v1/verifications/${id}`, { headers: { authorization: `Bearer ${token}` } }));
    if (v.status === 'completed' || v.status === 'failed') return v;
  }
  throw new Error(`verification ${id} did not finish`);
}

/**
 * Appends SEED copies of one real verification's event stream, each under a fresh verification
 * id (and fresh result ids), with its own name and date, through the event store's own append
 * (`PostgresEventStore.appendStreams`: the service's append function, its hash chain and its
 * numbering; no row shape of its own), SEED_BATCH streams per statement. Resumable: a database
 * seeded part way keeps its verifications and gets the rest. The projectors then build the read models.
 */
async function seed(connection: { url?: string; pgliteDir?: string }, templateId: string, accountId: string, count: number): Promise<void> {
  const knex = await openKnex(connection);
  try {
    const { PostgresEventStore } = await import('../src/adapters/eventstore/postgres.js');
    const store = new PostgresEventStore(knex);
    const template = await store.readStream(`verification-${templateId}`);
    if (template.length === 0) throw new Error(`the template verification ${templateId} has no events`);
    const existing = Number((await knex('events').where('stream', 'like', 'verification-%').countDistinct('stream as n'))[0]!.n);
    const keep = new Set([accountId]);
    for (const e of template) if (e.metadata.actor?.id) keep.add(e.metadata.actor.id);
    const uuid = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;
    const start = Date.now() - 200 * 86_400_000;
    for (let done = existing; done < count; ) {
      const batch: { stream: string; events: NewEvent[]; expectedRevision: 'no_stream' }[] = [];
      for (let k = 0; k < SEED_BATCH && done < count; k++, done++) {
        const ids = new Map<string, string>();
        const fresh = (text: string) => text.replace(uuid, (u) => (keep.has(u) ? u : ids.get(u) ?? (ids.set(u, crypto.randomUUID()), ids.get(u)!)));
        const at = new Date(start + done * 150_000).toISOString();
        const events = template.map((e): NewEvent => {
          const data = JSON.parse(fresh(JSON.stringify(e.data)));
          if (e.type === 'VerificationQueued') {
            data.name = `IMG_${String(done).padStart(6, '0')}.png`;
            data.queued_at = at;
          }
          const metadata = JSON.parse(fresh(JSON.stringify(e.metadata)));
          metadata.occurred_at = at;
          return { id: crypto.randomUUID(), type: e.type, version: e.version, data, metadata };
        });
        batch.push({ stream: fresh(template[0]!.stream), events, expectedRevision: 'no_stream' });
      }
      await store.appendStreams(batch);
      process.stderr.write(`[service] seeded ${done}/${count} verifications\r`);
    }
    process.stderr.write('\n');
  } finally {
    await knex.destroy();
  }
}

/** The bench's own connection; PGlite through the service's adapter, closed before the service opens the directory. */
async function openKnex(connection: { url?: string; pgliteDir?: string }) {
  if (connection.url) return knexFactory({ client: 'pg', connection: connection.url, pool: { min: 0, max: 2 } });
  const { openDatabase } = await import('../src/adapters/db/database.js');
  // knex's destroy() closes the PGlite instance (knex-pglite ends its one connection).
  return (await openDatabase({ dataDir: path.dirname(connection.pgliteDir!) })).knex;
}

/** Waits until every projector has reached `head` (GET /v1/public/health). */
async function waitProjected(url: string, head: bigint): Promise<number> {
  const t0 = performance.now();
  for (;;) {
    const health = await (await fetch(`${url}/v1/public/health`)).json();
    const projections = health.projections as { position: string; state: string }[];
    if (projections.some((p) => p.state === 'failed')) throw new Error(`a projector failed: ${JSON.stringify(projections)}`);
    const min = projections.map((p) => BigInt(p.position)).reduce((a, b) => (a < b ? a : b));
    process.stderr.write(`[service] projected to ${min} of ${head}\r`);
    if (min >= head) {
      process.stderr.write('\n');
      return Math.round(performance.now() - t0);
    }
    await sleep(1000);
  }
}

/** Runs the projectors (src/modules.ts) over the log until they reach `head`. */
async function projectInProcess(env: Record<string, string>, head: bigint): Promise<void> {
  const { pino } = await import('pino');
  const { loadConfig } = await import('../src/core/config.js');
  const { openStores } = await import('../src/service.js');
  const config = loadConfig({ ...env, LOG_LEVEL: 'warn' });
  const { db, store, projections } = await openStores(config, pino({ level: 'warn' }));
  projections.start();
  const progress = setInterval(() => process.stderr.write(`[service] projected to ${projections.status()[0]?.position} of ${head}\r`), 2000);
  try {
    if (!(await projections.waitFor(head, 3_600_000))) throw new Error('the projectors did not reach the head of the log within an hour');
  } finally {
    clearInterval(progress);
    process.stderr.write('\n');
    await projections.stop();
    await store.close();
    await db.close();
  }
}

async function headPosition(connection: { url?: string; pgliteDir?: string }): Promise<bigint> {
  const knex = await openKnex(connection);
  try {
    return BigInt((await knex('events').max('position as max').first())?.max ?? 0);
  } finally {
    await knex.destroy();
  }
}

/** Image-only verifications of a 64x64 PNG: POSTed by `clients` concurrent uploaders, timed until all completed. */
async function imageOnlyThroughput(url: string, token: string, count: number, clients = 8) {
  const loadBefore = load1();
  const ids: string[] = [];
  const t0 = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: clients }, async () => {
      while (next < count) {
        next++;
        ids.push(await uploadImageOnly(url, token, `burst-${next}.png`));
      }
    }),
  );
  const accepted = performance.now() - t0;
  // Completion: polled once per 100 ms through the list filtered by status.
  const pending = new Set(ids);
  while (pending.size) {
    for (const id of [...pending]) {
      const v = await json(await fetch(`${url}/v1/verifications/${id}`, { headers: { authorization: `Bearer ${token}` } }));
      if (v.status === 'completed' || v.status === 'failed') pending.delete(id);
      else break;
    }
    if (pending.size) await sleep(100);
    if (performance.now() - t0 > 900_000) throw new Error(`${pending.size} verifications still unfinished after 15 minutes`);
  }
  const completed = performance.now() - t0;
  return {
    count,
    concurrent_uploaders: clients,
    accepted_per_s: Math.round((count / accepted) * 1000 * 10) / 10,
    completed_per_s: Math.round((count / completed) * 1000 * 10) / 10,
    all_completed_ms: Math.round(completed),
    load_average: Number(((loadBefore + load1()) / 2).toFixed(2)),
    target_completed_per_s: 50,
  };
}

const ratio = (r: WrkResult, ref: WrkResult) => ({ ...r, ratio_to_reference: Math.round((r.rps / ref.rps) * 1000) / 1000 });

/** Which load generator the series ran on: ratios compare only within one tool. */
export const loadTool = () => (hasWrk ? 'wrk' : 'node:http clients in the bench process (wrk is not installed)');

export async function benchService(kind: 'pglite' | 'postgres'): Promise<Record<string, unknown>> {
  const build = spawnSync(process.execPath, [path.join(repo, 'node_modules/@typescript/native/bin/tsc'), '-b', 'tsconfig.build.json'], { cwd: repo, encoding: 'utf8' });
  if (build.status !== 0 && build.status !== 2) throw new Error(`build failed:\n${build.stdout}${build.stderr}`);
  spawnSync(process.execPath, ['scripts/pglite-template.mjs'], { cwd: repo, stdio: 'ignore' });

  let connection: { url?: string; pgliteDir?: string };
  let env: Record<string, string>;
  const dataDir = process.env.BENCH_DATA_DIR ?? path.join(os.tmpdir(), `pv-bench-reads-${kind}-${SEED}`);
  fs.mkdirSync(dataDir, { recursive: true });
  if (kind === 'postgres') {
    const admin = process.env.DATABASE_URL;
    if (!admin) return { skipped: 'DATABASE_URL is not set' };
    const target = new URL(admin);
    target.pathname = `/${PG_DATABASE}`;
    const a = knexFactory({ client: 'pg', connection: admin });
    const exists = await a.raw('select 1 from pg_database where datname = ?', [PG_DATABASE]);
    if (exists.rows.length === 0) await a.raw('create database ??', [PG_DATABASE]);
    await a.destroy();
    connection = { url: target.toString() };
    env = { DATABASE_URL: target.toString(), DATA_DIR: dataDir };
  } else {
    connection = { pgliteDir: path.join(dataDir, 'pglite') };
    env = { DATABASE_URL: '', DATA_DIR: dataDir };
  }

  const email = 'bench-reads@example.eu';
  // A database seeded by an earlier run that stopped before its projectors caught up.
  const earlierHead = await headPosition(connection).catch(() => 0n);
  if (earlierHead > 0n) await projectInProcess(env, earlierHead);
  let service = await startService(env);
  const idleRssAfterStart = rssMiB(service.pid);
  let token = await login(service.url, email);
  const me = await json(await fetch(`${service.url}/v1/accounts/me`, { headers: { authorization: `Bearer ${token}` } }));
  const accountId: string = me.account_id ?? me.account?.id;
  // The template: one real image-only verification, completed by the service.
  const list = await json(await fetch(`${service.url}/v1/verifications/?size=1&search=template.png`, { headers: { authorization: `Bearer ${token}` } }));
  const templateId: string = list.items[0]?.id ?? (await uploadImageOnly(service.url, token, 'template.png'));
  await waitCompleted(service.url, token, templateId);
  await service.stop();

  const seedStart = performance.now();
  await seed(connection, templateId, accountId, SEED);
  const seedMs = Math.round(performance.now() - seedStart);
  const head = await headPosition(connection);
  // The read models are built by the service's own projectors, run here until they reach the
  // head of the log: a service catching up on 600,000 events answers requests only between pages.
  const projectStart = performance.now();
  await projectInProcess(env, head);
  const projectMs = Math.round(performance.now() - projectStart);
  service = await startService(env);
  await waitProjected(service.url, head);
  token = await login(service.url, email);
  const auth = { authorization: `Bearer ${token}` };
  const one = await (await fetch(`${service.url}/v1/verifications/${templateId}`, { headers: auth })).text();
  // What the read models made of the seeded log: the list's total and one seeded name found by the search.
  const listed = await json(await fetch(`${service.url}/v1/verifications/?size=20`, { headers: auth }));
  const lastSeeded = `IMG_${String(SEED - 1).padStart(6, '0')}.png`;
  const found = await json(await fetch(`${service.url}/v1/verifications/?size=20&search=${lastSeeded}`, { headers: auth }));
  const readModels = { verifications_listed: listed.total, page_items: listed.items.length, search_for_last_seeded: { name: lastSeeded, total: found.total } };

  const reference = await referenceServer(one);
  try {
    await sleep(2000);
    const idleRss = rssMiB(service.pid);
    await wrk(`${service.url}/v1/verifications/${templateId}`, { headers: auth, seconds: Math.min(3, WRK_SECONDS) }); // warm-up
    const ref = await wrk(`${reference.url}/`);
    const byId = ratio(await wrk(`${service.url}/v1/verifications/${templateId}`, { headers: auth }), ref);
    const listPage = ratio(await wrk(`${service.url}/v1/verifications/?size=20`, { headers: auth }), ref);
    const listOne = await wrk(`${service.url}/v1/verifications/?size=20`, { headers: auth, connections: 1 });
    const search = ratio(await wrk(`${service.url}/v1/verifications/?size=20&search=IMG_04242`, { headers: auth }), ref);
    const searchOne = await wrk(`${service.url}/v1/verifications/?size=20&search=IMG_04242`, { headers: auth, connections: 1 });
    const health = ratio(await wrk(`${service.url}/v1/public/health`), ref);
    const notFound = ratio(await wrk(`${service.url}/v1/no-such-route`), ref);
    const refAgain = await wrk(`${reference.url}/`);
    const rssAfterReads = rssMiB(service.pid);
    const imageOnly = await imageOnlyThroughput(service.url, token, IMAGE_ONLY_COUNT);
    const rssAfterImageOnly = rssMiB(service.pid);
    await sleep(Number(process.env.BENCH_IDLE_WAIT_MS ?? 65_000));
    const rssIdleAgain = rssMiB(service.pid);
    return {
      what: `compiled service (node dist/src/main.js) on ${kind}, in-process workflows, LOG_LEVEL=info to /dev/null; wrk -t2 -c10 ${WRK_SECONDS} s on loopback unless said; ${SEED} verifications of the one account in the read models, seeded through the event log`,
      cores: os.cpus().length,
      load_tool: loadTool(),
      seed_ms: seedMs,
      projection_catch_up_ms: projectMs,
      read_models: readModels,
      reference_node_http_same_body: ref,
      reference_again_at_end: refAgain,
      get_verification_by_id: { ...byId, target_rps: kind === 'postgres' ? 2000 : 1000 },
      list_size_20: { ...listPage, one_connection: listOne, target_p95_ms: 30 },
      search_size_20: { ...search, one_connection: searchOne, target_p95_ms: 50 },
      health,
      not_found_no_database: notFound,
      image_only: imageOnly,
      rss_mib: {
        idle_after_cold_start: idleRssAfterStart,
        idle_after_seeded_start: idleRss,
        after_read_load: rssAfterReads,
        after_image_only_burst: rssAfterImageOnly,
        idle_again: rssIdleAgain,
        target_idle: 300,
      },
    };
  } finally {
    await reference.stop();
    await service.stop();
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const kinds = (process.argv[2] ? [process.argv[2]] : ['pglite', 'postgres']) as ('pglite' | 'postgres')[];
  const report: Record<string, unknown> = {};
  for (const kind of kinds) report[kind] = await benchService(kind);
  console.log(JSON.stringify(report, null, 2));
}
