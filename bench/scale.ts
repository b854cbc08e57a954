/**
 * Pairs analysed per minute with one worker and with two (issue 26, must-work 5; part of
 * `npm run bench`, alone: `npx tsx bench/scale.ts`). The deployment of the multi-instance test
 * (test/support/cluster.ts): one API (ROLE=api) and one or two workers (ROLE=worker), separate
 * processes of the compiled service, on PostgreSQL (DATABASE_URL), a Temporal dev server of its
 * own and a versitygw bucket. Each series posts BENCH_SCALE_PAIRS 30D pairs at once (default 8,
 * a fresh Professional account each) and times the first POST to the last completion; the
 * series alternate one worker / two workers (the second worker started and stopped between
 * them, BENCH_SCALE_ROUNDS times, default 3) so both see the same load, and each carries the
 * load average it ran under. The one-worker series are the reference: the figure is the ratio of
 * two workers to one, of the medians and of each round's neighbouring series.
 * Each worker analyses WORKFLOW_CONCURRENCY (2) pairs at once, so a second worker on a
 * 2-core machine only adds contention: its ratio shows the overhead, not a speed-up, which more
 * cores or another machine would give.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { json } from './client.js';
import { loadAverage, median, ratio } from './figures.js';
import { startInstance, startTemporalDevServer, temporalBin, type Instance } from '../test/support/cluster.js';
import { s3ServiceEnv, versitygwBin } from '../test/support/s3.js';

const fixtures = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../shared/fixtures');
const pair = {
  image: path.join(fixtures, 'pairs/canon_eos_30d_cr2/IMG_5952.camera-preview.jpg'),
  raw: path.join(fixtures, 'pairs/canon_eos_30d_cr2/IMG_5952.CR2'),
};
const PAIRS = Number(process.env.BENCH_SCALE_PAIRS ?? 8);
const ROUNDS = Number(process.env.BENCH_SCALE_ROUNDS ?? 3);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function professionalToken(url: string): Promise<string> {
  const email = `scale-${crypto.randomUUID()}@example.eu`;
  const post = (route: string, body: unknown) => fetch(`${url}${route}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }).then(json);
  await post('/v1/accounts', { name: 'scale', plan: 'professional', admin: { email, name: 'scale', password: 'a long enough password' } });
  return (await post('/v1/accounts/login', { email, password: 'a long enough password' })).access_token;
}

/** Posts the pairs at once and waits for every one to end; pairs per minute and the outcomes. */
async function series(api: Instance, workers: number): Promise<Record<string, unknown>> {
  const token = await professionalToken(api.url);
  const loadBefore = loadAverage();
  const started = performance.now();
  const ids = await Promise.all(
    Array.from({ length: PAIRS }, async () => {
      const form = new FormData();
      form.append('image', await fs.openAsBlob(pair.image), 'IMG_5952.jpg');
      form.append('raw', await fs.openAsBlob(pair.raw), 'IMG_5952.CR2');
      return (await json(await fetch(`${api.url}/v1/verifications/`, { method: 'POST', headers: { authorization: `Bearer ${token}` }, body: form }))).id as string;
    }),
  );
  const outcomes = new Map<string, string>();
  while (outcomes.size < ids.length) {
    if (performance.now() - started > 30 * 60_000) throw new Error(`${ids.length - outcomes.size} pairs did not finish in 30 minutes`);
    await sleep(250);
    for (const id of ids.filter((i) => !outcomes.has(i))) {
      const v = await json(await fetch(`${api.url}/v1/verifications/${id}`, { headers: { authorization: `Bearer ${token}` } }));
      if (v.status === 'completed' || v.status === 'failed') outcomes.set(id, `${v.status}/${v.assurance_level}`);
    }
  }
  const ms = performance.now() - started;
  return { workers, pairs: PAIRS, ms: Math.round(ms), pairs_per_minute: Math.round((PAIRS / (ms / 60_000)) * 10) / 10, outcomes: [...new Set(outcomes.values())], load_average: { before: loadBefore, after: loadAverage() } };
}

export async function benchScale(): Promise<Record<string, unknown>> {
  const missing = [!process.env.DATABASE_URL && 'DATABASE_URL (PostgreSQL)', !temporalBin && 'a temporal binary (TEMPORAL_BIN)', !versitygwBin && !process.env.S3_TEST_ENDPOINT && 'versitygw (VERSITYGW_BIN)'].filter(Boolean);
  if (missing.length > 0) return { skipped: `needs ${missing.join(', ')}` };
  const { databaseTargets } = await import('../test/support/databases.js');
  const scratch = await databaseTargets.find((t) => t.name === 'postgres')!.scratchUrl();
  const temporal = await startTemporalDevServer();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'pv-bench-scale-'));
  const env = {
    DATABASE_URL: scratch.url!,
    TEMPORAL_ADDRESS: temporal.address,
    TEMPORAL_TASK_QUEUE: `pv-bench-scale-${crypto.randomUUID()}`,
    ...(await s3ServiceEnv()),
    DATA_DIR: dataDir,
    JWT_SECRET: crypto.randomBytes(32).toString('base64url'),
    LOG_LEVEL: 'error',
  };
  const running: Instance[] = [];
  try {
    const api = await startInstance('api', 'api', env);
    running.push(api);
    running.push(await startInstance('worker-1', 'worker', env));
    // Warm-up: the first pairs pay for the workflow bundle, the decoders and the JIT.
    await series(api, 1);
    const one: Record<string, unknown>[] = [];
    const two: Record<string, unknown>[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      one.push(await series(api, 1));
      const second = await startInstance('worker-2', 'worker', env);
      running.push(second);
      two.push(await series(api, 2));
      await second.stop();
      running.splice(running.indexOf(second), 1);
    }
    const rate = (s: Record<string, unknown>[]) => median(s.map((x) => x.pairs_per_minute as number));
    return {
      what: `${PAIRS} 30D pairs posted at once to one ROLE=api process, analysed by one or two ROLE=worker processes (WORKFLOW_CONCURRENCY 2 each) on a Temporal dev server, PostgreSQL and versitygw; first POST to last completion; one/two-worker series alternate`,
      machine: { cpus: os.cpus().length },
      one_worker: one,
      two_workers: two,
      pairs_per_minute: { one_worker: rate(one), two_workers: rate(two) },
      two_over_one: ratio(rate(two), rate(one)),
      two_over_one_per_round: two.map((s, i) => ratio(s.pairs_per_minute as number, one[i]!.pairs_per_minute as number)),
      note: os.cpus().length <= 2 ? 'on 2 cores a second worker only adds contention (both compete for the same cores): the ratio shows its overhead, not a speed-up; workers scale throughput when they bring cores (another machine)' : undefined,
    };
  } finally {
    await Promise.all(running.map((instance) => instance.stop()));
    await temporal.stop();
    await scratch.drop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  console.log(JSON.stringify(await benchScale(), null, 2));
}
