/**
 * RAW decode benchmark: libraw-wasm (through this project's pool) against native LibRaw
 * (`dcraw_emu` from Debian libraw-bin) on the same files in the same run, plus the reference
 * rendering. Run alone with `npx tsx bench/decode.ts`; bench/run.ts composes it.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type LibRaw from 'libraw-wasm';
import { decodeRaw, renderReference, shutdownRawDecoders } from '../src/analysis/raw/index.js';
import { rawDecoderPool } from '../src/analysis/raw/decoder-pool.js';

const fixtures = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../shared/fixtures');
const files = {
  canon30dCr2: 'pairs/canon_eos_30d_cr2/IMG_5952.CR2',
  canon6dDng: 'pairs/canon_eos_6d_dng/canon_eos_6d.dng',
} as const;
const runs = 3;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return Math.round(sorted[Math.floor(sorted.length / 2)]! * 10) / 10;
}

async function timeMs(task: () => Promise<unknown>): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const started = performance.now();
    await task();
    times.push(performance.now() - started);
  }
  return times;
}

/** LibRaw's full processing (demosaic to 8-bit RGB) in wasm: the same work dcraw_emu does. */
async function wasmProcess(bytes: Uint8Array, halfSize: boolean): Promise<void> {
  await rawDecoderPool().run(async (libraw: LibRaw) => {
    await libraw.open(bytes.slice(), { halfSize, userQual: 3, useCameraWb: true });
    const image = await libraw.imageData();
    if (!image || image.width === 0) throw new Error('wasm processing produced no image');
    return { value: undefined, reusable: true };
  });
}

function whichDcrawEmu(): string | null {
  const found = spawnSync('which', ['dcraw_emu'], { encoding: 'utf8' });
  return found.status === 0 ? found.stdout.trim() : null;
}

/**
 * Wall time and peak RSS (KiB, via /usr/bin/time when present) of one native run. The image goes
 * to stdout (`-Z -`, discarded): dcraw_emu ignores options after the file name and would then
 * write its output next to the input, i.e. into the shared fixtures.
 */
function nativeRun(binary: string, options: string[], file: string): { ms: number; peakRssKiB?: number } {
  const timeBin = existsSync('/usr/bin/time') ? '/usr/bin/time' : null;
  const command = [binary, ...options, '-Z', '-', file];
  const spawnOptions = { encoding: 'utf8' as const, stdio: ['ignore', 'ignore', 'pipe'] as ['ignore', 'ignore', 'pipe'] };
  const started = performance.now();
  const result = timeBin ? spawnSync(timeBin, ['-f', '%M', ...command], spawnOptions) : spawnSync(command[0]!, command.slice(1), spawnOptions);
  const ms = performance.now() - started;
  if (result.status !== 0) throw new Error(`dcraw_emu failed: ${result.stderr}`);
  const rss = timeBin ? Number(result.stderr.trim().split('\n').at(-1)) : NaN;
  return Number.isFinite(rss) ? { ms, peakRssKiB: rss } : { ms };
}

async function benchFile(name: keyof typeof files, native: string | null): Promise<Record<string, unknown>> {
  const file = path.join(fixtures, files[name]);
  const bytes = new Uint8Array(readFileSync(file));
  const coldStarted = performance.now();
  const outcome = await decodeRaw(bytes);
  const coldDecodeMs = performance.now() - coldStarted;
  if (outcome.kind !== 'decoded') throw new Error(`${name} did not decode`);
  const decodeMs = await timeMs(() => decodeRaw(bytes));
  const renderMs = await timeMs(() => renderReference(outcome.raw));
  const render1024Ms = await timeMs(() => renderReference(outcome.raw, { maxSide: 1024 }));
  const wasmFullMs = await timeMs(() => wasmProcess(bytes, false));
  const wasmHalfMs = await timeMs(() => wasmProcess(bytes, true));
  const report: Record<string, unknown> = {
    file: files[name],
    megapixels: Math.round((outcome.raw.width * outcome.raw.height) / 1e5) / 10,
    wasm: {
      decodeRawColdMs: Math.round(coldDecodeMs),
      decodeRawMs: median(decodeMs),
      renderReferenceMs: median(renderMs),
      renderReference1024Ms: median(render1024Ms),
      fullAhdMs: median(wasmFullMs),
      halfSizeMs: median(wasmHalfMs),
    },
  };
  if (!native) return report;
  const full = Array.from({ length: runs }, () => nativeRun(native, ['-w', '-q', '3'], file));
  const half = Array.from({ length: runs }, () => nativeRun(native, ['-w', '-h'], file));
  const nativeFull = median(full.map((r) => r.ms));
  const nativeHalf = median(half.map((r) => r.ms));
  report.native = {
    fullAhdMs: nativeFull,
    halfSizeMs: nativeHalf,
    peakRssKiB: Math.max(...full.map((r) => r.peakRssKiB ?? 0)) || undefined,
  };
  report.wasmToNativeRatio = {
    fullAhd: Math.round((median(wasmFullMs) / nativeFull) * 100) / 100,
    halfSize: Math.round((median(wasmHalfMs) / nativeHalf) * 100) / 100,
  };
  return report;
}

export async function benchDecode(): Promise<Record<string, unknown>> {
  const native = whichDcrawEmu();
  try {
    const results: Record<string, unknown> = {
      native: native ? { binary: native, note: 'dcraw_emu timings include process start-up and writing the PPM to a discarded stdout' } : { skipped: 'dcraw_emu not found (Debian libraw-bin not installed)' },
      runsPerMeasure: runs,
    };
    for (const name of Object.keys(files) as (keyof typeof files)[]) results[name] = await benchFile(name, native);
    results.peakRssMiB = Math.round(process.resourceUsage().maxRSS / 1024);
    return results;
  } finally {
    shutdownRawDecoders();
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  console.log(JSON.stringify(await benchDecode(), null, 2));
}
