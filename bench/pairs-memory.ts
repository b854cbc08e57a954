/**
 * Memory with 10 concurrent 30D pairs in one service process (part of `npm run bench`; alone:
 * `npx tsx bench/pairs-memory.ts`): the compiled service (`node dist/main.js`, embedded PGlite,
 * in-process workflows) receives 10 pair uploads at once; its RSS (analysis threads included:
 * they are threads of the same process) is sampled every 100 ms from before the uploads until
 * a minute after the last verification completed. Targets (issue 13): peak ≤ 1.5 GiB, back
 * under 500 MiB within a minute after.
 *
 * The Free plan allows 5 pairs a month, so the pairs are spread over fresh accounts, 5 each.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const pairDir = path.resolve(repo, '../shared/fixtures/pairs/canon_eos_30d_cr2');
const PAIRS = Number(process.env.BENCH_PAIRS ?? 10);
const PAIRS_PER_ACCOUNT = 5;
const AFTER_MS = Number(process.env.BENCH_PAIRS_AFTER_MS ?? 60_000);
const SAMPLE_MS = 100;

const load1 = () => Number(os.loadavg()[0]!.toFixed(2));
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const rssMiB = (pid: number) => Math.round(Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024);

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

async function json(response: Response): Promise<any> {
  const body = await response.json();
  if (!response.ok) throw new Error(`${response.url}: HTTP ${response.status} ${JSON.stringify(body)}`);
  return body;
}

function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}

async function freshToken(url: string, n: number): Promise<string> {
  const admin = { email: `pairs-memory${n}-${Date.now()}@example.eu`, name: `Bench ${n}`, password: 'a long enough password' };
  const post = (route: string, body: unknown) =>
    fetch(`${url}${route}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }).then(json);
  await post('/v1/accounts', { name: `Bench ${n}`, admin });
  return (await post('/v1/accounts/login', { email: admin.email, password: admin.password })).access_token;
}

export async function benchPairsMemory(): Promise<Record<string, unknown>> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'pv-pairs-memory-'));
  const port = await freePort();
  const child = spawn(process.execPath, ['dist/main.js'], {
    cwd: repo,
    env: { ...process.env, DATABASE_URL: '', EVENTSTORE_URL: '', TEMPORAL_ADDRESS: '', HOST: '127.0.0.1', PORT: String(port), DATA_DIR: dataDir, LOG_LEVEL: 'warn', PASSWORD_HASH_COST: '10' },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const url = `http://127.0.0.1:${port}`;
  try {
    for (const t0 = performance.now(); ; await sleep(100)) {
      if (child.exitCode !== null) throw new Error('the service exited before it answered');
      if (await fetch(`${url}/v1/public/health`).then((r) => r.arrayBuffer().then(() => r.ok), () => false)) break;
      if (performance.now() - t0 > 300_000) throw new Error('the service did not become healthy');
    }
    const pid = child.pid!;
    const tokens = await Promise.all(Array.from({ length: Math.ceil(PAIRS / PAIRS_PER_ACCOUNT) }, (_, n) => freshToken(url, n)));
    await sleep(2000);
    const idleBefore = rssMiB(pid);
    const samples: { at: number; rss: number }[] = [];
    const t0 = performance.now();
    const sampler = setInterval(() => samples.push({ at: performance.now() - t0, rss: rssMiB(pid) }), SAMPLE_MS);
    const loadBefore = load1();
    const image = await fs.openAsBlob(path.join(pairDir, 'IMG_5952.camera-preview.jpg'));
    const raw = await fs.openAsBlob(path.join(pairDir, 'IMG_5952.CR2'));
    const ids = await Promise.all(
      Array.from({ length: PAIRS }, async (_, n) => {
        const form = new FormData();
        form.append('image', image, `IMG_5952-${n}.jpg`);
        form.append('raw', raw, `IMG_5952-${n}.CR2`);
        const created = await json(await fetch(`${url}/v1/verifications/`, { method: 'POST', headers: { authorization: `Bearer ${tokens[Math.floor(n / PAIRS_PER_ACCOUNT)]}` }, body: form }));
        return { id: created.id as string, token: tokens[Math.floor(n / PAIRS_PER_ACCOUNT)]! };
      }),
    );
    const statuses = new Map<string, string>();
    for (;;) {
      for (const { id, token } of ids) {
        if (statuses.has(id)) continue;
        const v = await json(await fetch(`${url}/v1/verifications/${id}`, { headers: { authorization: `Bearer ${token}` } }));
        if (v.status === 'completed' || v.status === 'failed') statuses.set(id, `${v.status}/${v.assurance_level}`);
      }
      if (statuses.size === ids.length) break;
      if (performance.now() - t0 > 900_000) throw new Error(`${ids.length - statuses.size} pairs unfinished after 15 minutes`);
      await sleep(500);
    }
    const allDone = performance.now() - t0;
    const loadAtDone = load1();
    await sleep(AFTER_MS);
    clearInterval(sampler);
    const after = samples.filter((s) => s.at >= allDone);
    const peak = samples.reduce((max, s) => Math.max(max, s.rss), 0);
    // When the RSS went under 500 MiB for good (never: null).
    const lastOver = [...after].reverse().find((s) => s.rss >= 500);
    const underFrom = after.length === 0 || after.at(-1)!.rss >= 500 ? null : lastOver ? lastOver.at - allDone + SAMPLE_MS : 0;
    return {
      what: `${PAIRS} concurrent 30D pairs (CR2 + camera JPEG) uploaded at once to one compiled service (node dist/main.js, PGlite, in-process workflows, default WORKFLOW_CONCURRENCY), RSS of the service process sampled every ${SAMPLE_MS} ms`,
      outcomes: [...statuses.values()],
      all_completed_ms: Math.round(allDone),
      load_average: { before: loadBefore, at_completion: loadAtDone, after: load1() },
      rss_mib: {
        idle_before: idleBefore,
        peak,
        at_completion: after[0]?.rss ?? null,
        a_minute_after: rssMiB(pid),
        under_500_ms_after_completion: underFrom === null ? null : Math.round(underFrom),
        target_peak: 1536,
        target_a_minute_after: 500,
      },
    };
  } finally {
    await stopChild(child);
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  console.log(JSON.stringify(await benchPairsMemory(), null, 2));
}
