/**
 * End-to-end pair timing: POST of the 30D pair to `completed`, through a real service (HTTP on a
 * real socket, in-memory PGlite, in-process workflows), polled every 50 ms so the poll adds at
 * most 50 ms. This is what a client waits minus its own poll interval; bench/run.ts times the
 * analysis alone, so the difference is the service's overhead (upload, hashing, events,
 * projections, signing and rendering the badge). Run alone with `npx tsx bench/e2e.ts`.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { pino } from 'pino';
import { loadConfig } from '../src/core/config.js';
import { startService } from '../src/service.js';

const fixtures = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../shared/fixtures');
const pair = {
  image: path.join(fixtures, 'pairs/canon_eos_30d_cr2/IMG_5952.camera-preview.jpg'),
  raw: path.join(fixtures, 'pairs/canon_eos_30d_cr2/IMG_5952.CR2'),
};
const RUNS = 5;
const POLL_MS = 50;

const median = (values: number[]) => [...values].sort((a, b) => a - b)[values.length >> 1]!;

async function json(response: Response): Promise<any> {
  const body = await response.json();
  if (!response.ok) throw new Error(`${response.url}: HTTP ${response.status} ${JSON.stringify(body)}`);
  return body;
}

/** A fresh account per run: the Free plan's 5 pairs a month would stop a longer series. */
async function freshToken(url: string, n: number): Promise<string> {
  const admin = { email: `bench${n}-${Date.now()}@example.eu`, name: `Bench ${n}`, password: 'a long enough password' };
  const post = (route: string, body: unknown) =>
    fetch(`${url}${route}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }).then(json);
  await post('/v1/accounts', { name: `Bench ${n}`, admin });
  return (await post('/v1/accounts/login', { email: admin.email, password: admin.password })).access_token;
}

async function onePair(url: string, token: string): Promise<{ totalMs: number; uploadMs: number; assurance: string }> {
  const auth = { authorization: `Bearer ${token}` };
  const form = new FormData();
  form.append('image', await fs.openAsBlob(pair.image), 'IMG_5952.jpg');
  form.append('raw', await fs.openAsBlob(pair.raw), 'IMG_5952.CR2');
  const t0 = performance.now();
  const { id } = await json(await fetch(`${url}/v1/verifications/`, { method: 'POST', headers: auth, body: form }));
  const uploadMs = performance.now() - t0;
  for (;;) {
    const v = await json(await fetch(`${url}/v1/verifications/${id}`, { headers: auth }));
    if (v.status === 'completed' || v.status === 'failed') {
      return { totalMs: Math.round(performance.now() - t0), uploadMs: Math.round(uploadMs), assurance: `${v.status}/${v.assurance_level}` };
    }
    if (performance.now() - t0 > 120_000) throw new Error(`verification ${id} still ${v.status} after 2 minutes`);
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

export async function benchEndToEnd(): Promise<Record<string, unknown>> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'pv-bench-'));
  const config = loadConfig({ PORT: '0', HOST: '127.0.0.1', DATA_DIR: dataDir, PASSWORD_HASH_COST: '10', LOG_LEVEL: 'silent' });
  const service = await startService(config, { logger: pino({ level: 'silent' }), inMemoryDatabase: true });
  try {
    await onePair(service.url, await freshToken(service.url, 0)); // warm-up: decoder pool, JIT, first queries
    const runs = [];
    for (let i = 1; i <= RUNS; i++) runs.push(await onePair(service.url, await freshToken(service.url, i)));
    return {
      what: 'POST /v1/verifications/ of the 30D pair to status completed, real HTTP service on in-memory PGlite, in-process workflows',
      poll_ms: POLL_MS,
      median_ms: median(runs.map((r) => r.totalMs)),
      all_ms: runs.map((r) => r.totalMs),
      upload_median_ms: median(runs.map((r) => r.uploadMs)),
      outcome: [...new Set(runs.map((r) => r.assurance))],
    };
  } finally {
    await service.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  console.log(JSON.stringify(await benchEndToEnd(), null, 2));
}
