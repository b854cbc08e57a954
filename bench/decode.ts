/**
 * RAW decode benchmark, like for like: LibRaw in WebAssembly (this project's decoder pool, a
 * warm instance) against native LibRaw (Debian libraw-bin's `postprocessing_benchmark`), both
 * timed inside their own process, on the same files in the same run. Process start-up is in
 * neither figure: native LibRaw times its own unpack() and dcraw_process(); the wasm figures
 * are taken around the pool's calls after a warm-up.
 *
 * - unpack: LibRaw unpack() (native) against `rawImageData()` (wasm: unpack plus handing the
 *   sensor frame to the caller's thread); `decodeRaw` (the product's whole RAW step: container
 *   checks, unpack, crop, metadata) is reported beside it against the same native unpack.
 * - full AHD / half size: unpack + dcraw_process (native) against open + `imageData()` (wasm:
 *   the same plus the 8-bit copy out). Both use LibRaw's default white balance.
 *
 * Run alone with `npx tsx bench/decode.ts`; bench/run.ts composes it.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type LibRaw from 'libraw-wasm';
import { decodeRaw, renderReference, shutdownRawDecoders } from '../src/analysis/raw/index.js';
import { rawDecoderPool } from '../src/analysis/raw/decoder-pool.js';
import { loadAverage, median, ratio, timeRuns } from './figures.js';

const fixtures = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../shared/fixtures');
const files = {
  canon30dCr2: 'pairs/canon_eos_30d_cr2/IMG_5952.CR2',
  canon6dDng: 'pairs/canon_eos_6d_dng/canon_eos_6d.dng',
} as const;
const runs = 5;
const NATIVE = 'postprocessing_benchmark';
// libraw-wasm keeps settings from one open() to the next: every call states LibRaw's defaults for
// what decodeRaw's LinearRaw settings change (16-bit linear output), and the size it wants.
const defaults = { outputBps: 8, gamm: [0.45, 4.5], noAutoBright: false, outputColor: 1, userMul: [0, 0, 0, 0], noAutoScale: false, userFlip: -1, userQual: 3 };
const full = { ...defaults, halfSize: false };
const half = { ...defaults, halfSize: true };

/** One wasm job on a warm pool instance; `step` returns what to time inside the job. */
async function wasmTimed(bytes: Uint8Array, settings: object, step: 'rawImageData' | 'imageData'): Promise<number> {
  return rawDecoderPool().run(async (libraw: LibRaw) => {
    const started = performance.now();
    await libraw.open(bytes.slice(), settings as never);
    // As decodeRaw does: without this call rawImageData() sometimes answers nothing.
    await libraw.metadata(true);
    const opened = performance.now();
    const out = step === 'rawImageData' ? await libraw.rawImageData() : await libraw.imageData();
    // A LinearRaw DNG has no sensor mosaic to hand out: its unpack is not comparable (NaN).
    if (!out?.data || out.data.length === 0) {
      if (step === 'rawImageData') return { value: NaN, reusable: false };
      throw new Error(`wasm ${step} produced no image`);
    }
    // unpack happens in rawImageData(): open() only parses, and native unpack excludes parsing too.
    return { value: performance.now() - (step === 'rawImageData' ? opened : started), reusable: true };
  });
}

interface NativeRun {
  unpackMs: number;
  processMs: number;
}

/** One native process: its own unpack time and the mean dcraw_process time over 3 repetitions. */
function nativeRun(options: string[], file: string): NativeRun {
  const result = spawnSync(NATIVE, [...options, '-R', '3', file], { encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`${NATIVE} failed: ${result.stderr}`);
  const unpack = /([\d.]+) msec for unpack/.exec(result.stdout);
  const process = /Frame: \d+ [\d.]+ total Mpix, ([\d.]+) msec/.exec(result.stdout);
  if (!unpack || !process) throw new Error(`${NATIVE}: unexpected output ${result.stdout}`);
  return { unpackMs: Number(unpack[1]), processMs: Number(process[1]) };
}

const nativeAvailable = () => spawnSync('which', [NATIVE], { encoding: 'utf8' }).status === 0;

async function benchFile(name: keyof typeof files, native: boolean): Promise<Record<string, unknown>> {
  const file = path.join(fixtures, files[name]);
  const bytes = new Uint8Array(readFileSync(file));
  const load = loadAverage();
  const coldStarted = performance.now();
  const outcome = await decodeRaw(bytes);
  const coldDecodeMs = performance.now() - coldStarted;
  if (outcome.kind !== 'decoded') throw new Error(`${name} did not decode`);
  await wasmTimed(bytes, full, 'imageData'); // warm-up of the processing path
  const wasm = {
    unpack: [] as number[],
    decodeRaw: await timeRuns(runs, () => decodeRaw(bytes)),
    fullAhd: [] as number[],
    halfSize: [] as number[],
  };
  const nativeFull: NativeRun[] = [];
  const nativeHalf: NativeRun[] = [];
  // Interleaved, so both sides see the same load.
  for (let i = 0; i < runs; i++) {
    wasm.unpack.push(await wasmTimed(bytes, full, 'rawImageData'));
    wasm.fullAhd.push(await wasmTimed(bytes, full, 'imageData'));
    wasm.halfSize.push(await wasmTimed(bytes, half, 'imageData'));
    if (native) {
      nativeFull.push(nativeRun(['-q', '3'], file));
      nativeHalf.push(nativeRun(['-h'], file));
    }
  }
  const mosaic = !wasm.unpack.some(Number.isNaN);
  const report: Record<string, unknown> = {
    file: files[name],
    sensor_data: mosaic ? 'CFA mosaic' : 'LinearRaw (demosaiced): no unpack comparison',
    megapixels: Math.round((outcome.raw.width * outcome.raw.height) / 1e5) / 10,
    load_average: { before: load, after: loadAverage() },
    wasm_ms: {
      unpack: mosaic ? median(wasm.unpack) : null,
      decodeRaw: median(wasm.decodeRaw),
      decodeRawCold: Math.round(coldDecodeMs),
      fullAhd: median(wasm.fullAhd),
      halfSize: median(wasm.halfSize),
      renderReference: median(await timeRuns(3, () => renderReference(outcome.raw))),
    },
  };
  if (!native) return report;
  const nativeUnpack = median([...nativeFull, ...nativeHalf].map((r) => r.unpackMs));
  const nativeMs = {
    unpack: nativeUnpack,
    fullAhd: Math.round((nativeUnpack + median(nativeFull.map((r) => r.processMs))) * 10) / 10,
    halfSize: Math.round((nativeUnpack + median(nativeHalf.map((r) => r.processMs))) * 10) / 10,
  };
  report.native_ms = nativeMs;
  report.wasm_to_native = {
    unpack: mosaic ? ratio(median(wasm.unpack), nativeMs.unpack) : null,
    fullAhd: ratio(median(wasm.fullAhd), nativeMs.fullAhd),
    halfSize: ratio(median(wasm.halfSize), nativeMs.halfSize),
    decodeRaw_to_native_unpack: ratio(median(wasm.decodeRaw), nativeMs.unpack),
    target: 1.5,
  };
  return report;
}

export async function benchDecode(): Promise<Record<string, unknown>> {
  const native = nativeAvailable();
  try {
    const results: Record<string, unknown> = {
      what: 'in-process against in-process: LibRaw in wasm (warm pool instance) vs native LibRaw 0.20 (postprocessing_benchmark, its own timers); medians of 5 interleaved runs',
      native: native ? NATIVE : { skipped: `${NATIVE} not found (apt-get install libraw-bin)` },
    };
    for (const name of Object.keys(files) as (keyof typeof files)[]) results[name] = await benchFile(name, native);
    return results;
  } finally {
    shutdownRawDecoders();
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  console.log(JSON.stringify(await benchDecode(), null, 2));
}
