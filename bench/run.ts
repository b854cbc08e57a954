/**
 * `npm run bench`: analysis time of the 30D pair (median of 5 runs after a warm-up), time per
 * megapixel, peak RSS, a synthetic 24 MP pair (the 30D reference upscaled: no 24 MP RAW+JPEG
 * pair exists in the fixtures, so the JPEG side is upscaled to 6000x4000); RAW decode against
 * native LibRaw in-process (bench/decode.ts); the C2PA check against c2pa-python in-process
 * (bench/c2pa.ts); POST to completed through a real service, the pair against the analysis
 * alone, and a 12 MP HEIC image-only check (bench/e2e.ts); the start-up figures of the compiled
 * service and CLI (bench/startup.ts); the service's reads, image-only throughput and memory
 * against bare node:http (bench/service.ts); the command path of one image-only verification at
 * a time (bench/command-path.ts); the service's RSS with 10 concurrent pairs and a minute after
 * (bench/pairs-memory.ts); the rebuild of every read model from that seeded log against a plain
 * read of it (bench/rebuild.ts); a 24 MP pair's PSD export against its analysis (bench/psd-export.ts);
 * pairs analysed per minute with one worker process and with two (bench/scale.ts).
 * Every series carries the load average it ran under.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import sharp from 'sharp';
import { analyzePair } from '../src/analysis/pipeline.js';
import { shutdownRawDecoders } from '../src/analysis/raw/index.js';
import { loadAverage } from './figures.js';

const fixtures = path.resolve(import.meta.dirname, '../../shared/fixtures');
const raw = new Uint8Array(readFileSync(path.join(fixtures, 'pairs/canon_eos_30d_cr2/IMG_5952.CR2')));
const jpeg = new Uint8Array(readFileSync(path.join(fixtures, 'pairs/canon_eos_30d_cr2/IMG_5952.camera-preview.jpg')));

let peakRss = process.memoryUsage().rss;
const sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 20);

async function timeRuns(image: Uint8Array, runs: number): Promise<{ median: number; all: number[]; grade: string }> {
  const all: number[] = [];
  let grade = '';
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    const a = await analyzePair({ raw, image });
    all.push(Math.round(performance.now() - t0));
    grade = a.grade.assurance_level;
  }
  const sorted = [...all].sort((x, y) => x - y);
  return { median: sorted[sorted.length >> 1]!, all, grade };
}

await analyzePair({ raw, image: jpeg }); // warm-up: worker pool start, JIT
const load30d = loadAverage();
const pair30d = await timeRuns(jpeg, 5);
const load30dAfter = loadAverage();
const sensorMp = (3504 * 2336) / 1e6;
const peak30d = peakRss;

const big = new Uint8Array(await sharp(jpeg).resize(6000, 4000).jpeg({ quality: 92 }).toBuffer());
peakRss = process.memoryUsage().rss;
const pair24 = await timeRuns(big, 3);
const peak24 = peakRss;
clearInterval(sampler);
shutdownRawDecoders();

const report: Record<string, unknown> = {
  machine: { cpus: (await import('node:os')).cpus().length, node: process.version },
  pair_30d: { ...pair30d, load_average: { before: load30d, after: load30dAfter }, ms_per_raw_megapixel: Math.round(pair30d.median / sensorMp), target_ms: 2500, peak_rss_mb: Math.round(peak30d / 2 ** 20) },
  pair_24mp_jpeg_upscaled: { ...pair24, ms_per_image_megapixel: Math.round(pair24.median / 24), peak_rss_mb: Math.round(peak24 / 2 ** 20), target_peak_mb: 1536 },
};
report.decode = await (await import('./decode.js')).benchDecode();
report.c2pa_check = await (await import('./c2pa.js')).benchC2pa();
// POST to completed through a real service (bench/e2e.ts): the analysis plus the service's overhead.
report.end_to_end = await (await import('./e2e.js')).benchEndToEnd();
// Cold/warm start to healthy and CLI --help, against a bare node:http start measured alongside.
report.startup = await (await import('./startup.js')).benchStartup();
// Reads, health, image-only throughput and RSS of the compiled service, against a bare node:http
// server answering the same body in the same run (bench/service.ts; PostgreSQL when DATABASE_URL is set).
const { benchService } = await import('./service.js');
report.service = { pglite: await benchService('pglite'), postgres: await benchService('postgres') };
// Every read model rebuilt from the PGlite database the service bench seeded, against one plain read of its log (bench/rebuild.ts).
report.rebuild = await (await import('./rebuild.js')).benchRebuild(process.env.BENCH_DATA_DIR ?? path.join((await import('node:os')).tmpdir(), `pv-bench-reads-pglite-${process.env.BENCH_VERIFICATIONS ?? 100_000}`));
// One image-only verification at a time, POST to completed, the service's CPU and queries per verification (bench/command-path.ts).
report.command_path = await (await import('./command-path.js')).benchCommandPath();
// RSS of one service process with 10 concurrent 30D pairs, and a minute after (bench/pairs-memory.ts).
report.pairs_memory = await (await import('./pairs-memory.js')).benchPairsMemory();
// A 24 MP pair's PSD export against its analysis, each in its own process: time and peak (bench/psd-export.ts).
report.psd_export = await (await import('./psd-export.js')).benchPsdExport();
// Pairs per minute with one ROLE=worker process and with two, alternating series (bench/scale.ts; needs PostgreSQL, Temporal, versitygw).
report.scale = await (await import('./scale.js')).benchScale();
process.stdout.write(JSON.stringify(report, null, 2) + '\n');
