/**
 * Footprint with 10 pairs in flight (part of `npm run bench`; alone: `npx tsx bench/pairs-memory.ts`):
 * the compiled service (`node dist/src/main.js`, embedded PGlite, in-process workflows) as its own
 * process receives ten 30D pairs (8.2 MP CR2 + camera JPEG) at once, from two fresh accounts
 * (the Free plan allows 5 pairs a month). The kernel's high-water mark of the process (VmHWM in
 * /proc/<pid>/status: every thread, the WebAssembly heaps and the analysis threads included) is
 * the peak; RSS is then sampled every second for 65 s after the last pair completed.
 * Targets (issue 13): peak ≤ 1.5 GiB, back under 500 MiB within a minute.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { freshToken, json } from './client.js';
import { loadAverage } from './figures.js';
import { rssMiB, startService } from './service.js';

const fixtures = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../shared/fixtures');
const pair = {
  image: path.join(fixtures, 'pairs/canon_eos_30d_cr2/IMG_5952.camera-preview.jpg'),
  raw: path.join(fixtures, 'pairs/canon_eos_30d_cr2/IMG_5952.CR2'),
};
const PAIRS = 10;
const PAIRS_PER_ACCOUNT = 5;
const AFTER_MS = Number(process.env.BENCH_IDLE_WAIT_MS ?? 65_000);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const peakMiB = (pid: number) => Math.round(Number(/VmHWM:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024);



async function postPair(url: string, token: string): Promise<string> {
  const form = new FormData();
  form.append('image', await fs.openAsBlob(pair.image), 'IMG_5952.jpg');
  form.append('raw', await fs.openAsBlob(pair.raw), 'IMG_5952.CR2');
  return (await json(await fetch(`${url}/v1/verifications/`, { method: 'POST', headers: { authorization: `Bearer ${token}` }, body: form }))).id;
}

async function waitAll(url: string, jobs: { id: string; token: string }[]): Promise<string[]> {
  const outcomes = new Map<string, string>();
  for (const t0 = performance.now(); outcomes.size < jobs.length; await sleep(1000)) {
    if (performance.now() - t0 > 30 * 60_000) throw new Error(`${jobs.length - outcomes.size} pairs did not finish in 30 minutes`);
    for (const job of jobs.filter((j) => !outcomes.has(j.id))) {
      const v = await json(await fetch(`${url}/v1/verifications/${job.id}`, { headers: { authorization: `Bearer ${job.token}` } }));
      if (v.status === 'completed' || v.status === 'failed') outcomes.set(job.id, `${v.status}/${v.assurance_level}`);
    }
  }
  return jobs.map((j) => outcomes.get(j.id)!);
}

export async function benchPairsMemory(): Promise<Record<string, unknown>> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'pv-bench-pairs-'));
  const service = await startService({ DATABASE_URL: '', DATA_DIR: dataDir });
  try {
    const idle = rssMiB(service.pid);
    const tokens = await Promise.all(Array.from({ length: PAIRS / PAIRS_PER_ACCOUNT }, () => freshToken(service.url, 'pairs')));
    const loadBefore = loadAverage();
    const started = performance.now();
    const jobs = await Promise.all(
      Array.from({ length: PAIRS }, async (_, i) => {
        const token = tokens[Math.floor(i / PAIRS_PER_ACCOUNT)]!;
        return { id: await postPair(service.url, token), token };
      }),
    );
    const outcomes = await waitAll(service.url, jobs);
    const allCompletedMs = Math.round(performance.now() - started);
    const peak = peakMiB(service.pid);
    const after: number[] = [];
    for (let waited = 0; waited < AFTER_MS; waited += 1000) {
      await sleep(1000);
      after.push(rssMiB(service.pid));
    }
    const firstUnder500 = after.findIndex((mib) => mib < 500);
    return {
      what: `${PAIRS} 30D pairs posted at once to the compiled service (embedded PGlite, in-process workflows); peak = VmHWM of the service process`,
      load_average: { before: loadBefore, after: loadAverage() },
      rss_idle_before_mib: idle,
      peak_rss_mib: peak,
      all_completed_ms: allCompletedMs,
      outcomes: [...new Set(outcomes)],
      rss_after_completion_mib: { at_1s: after[0], at_30s: after[29], at_60s: after[59], last: after.at(-1) },
      seconds_until_under_500_mib: firstUnder500 < 0 ? null : firstUnder500 + 1,
      target: { peak_mib: 1536, under_500_mib_within_s: 60 },
    };
  } finally {
    await service.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  console.log(JSON.stringify(await benchPairsMemory(), null, 2));
}
