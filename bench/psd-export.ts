/**
 * The PSD export of a 24 MP pair against the pair's analysis, in the same run (part of
 * `npm run bench`; alone: `npx tsx bench/psd-export.ts`). No 24 MP RAW+JPEG pair exists in the
 * fixtures, so the pair is the 30D CR2 with its camera JPEG upscaled to 6000x4000 (as bench/run.ts's
 * 24 MP figure): the canvas is then 24 MP and every layer full size. Each step runs in a child
 * process of its own, so its peak is the kernel's high-water mark (VmHWM in /proc/self/status:
 * worker threads and WebAssembly heaps included): first the analysis (src/analysis/pipeline.ts,
 * which also gives the registration, heatmap and full-size RAW rendering the export reads), then the export from those
 * (src/features/psd-export/psd-file.ts renderInThread, the thread buildPsdExport runs). Both
 * figures are also given as ratios to the analysis's, each with the load average it ran under.
 * Target (issue 23): the export peaks at ≤ 1.5 GiB.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import sharp from 'sharp';
import { loadAverage, ratio } from './figures.js';

const here = fileURLToPath(import.meta.url);
const fixtures = path.resolve(path.dirname(here), '../../shared/fixtures');
const rawPath = path.join(fixtures, 'pairs/canon_eos_30d_cr2/IMG_5952.CR2');
const jpegPath = path.join(fixtures, 'pairs/canon_eos_30d_cr2/IMG_5952.camera-preview.jpg');
const peakMiB = () => Math.round(Number(/VmHWM:\s+(\d+)/.exec(fs.readFileSync('/proc/self/status', 'utf8'))![1]) / 1024);

export interface StepFigures {
  ms: number;
  peak_rss_mib: number;
  load_average: { before: string; after: string };
}

/** Runs one step (`analysis` or `export`) over the files in `dir`, in a child process; its figures. */
function step(name: 'analysis' | 'export', dir: string): Promise<StepFigures & Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    const before = loadAverage();
    const child = spawn(process.execPath, ['--import', 'tsx', here, name, dir], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk));
    child.on('error', reject);
    child.on('exit', (code) => {
      if (code !== 0) return reject(new Error(`psd-export bench step ${name} exited with ${code}`));
      resolve({ ...JSON.parse(out), load_average: { before, after: loadAverage() } });
    });
  });
}

/**
 * A pair's analysis and export, each in its own process: the 30D CR2 with its camera JPEG
 * upscaled to `width`x`height` (default 6000x4000, 24 MP). `noisyPhoto`: after the analysis the
 * photo is replaced by the same photo with Gaussian noise over it (sigma 40), the worst case of
 * the writer (RLE compresses noise not at all, so the photo layer and the composite are as large
 * as they can be) with the real RAW's registration and rendition. `dir` receives the pair, the
 * analysis's outputs and the PSD (removed afterwards unless `keep`).
 */
export async function measurePsdExport(
  options: { keep?: boolean; width?: number; height?: number; noisyPhoto?: boolean } = {},
): Promise<{ dir: string; analysis: StepFigures; export: StepFigures & { file_mib: number; width: number; height: number } }> {
  const { width = 6000, height = 4000 } = options;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pv-bench-psd-'));
  try {
    const image = path.join(dir, 'image.jpg');
    await sharp(jpegPath).resize(width, height, { fit: 'fill' }).jpeg({ quality: 92 }).toFile(image);
    fs.copyFileSync(rawPath, path.join(dir, 'raw'));
    const analysis = await step('analysis', dir);
    if (options.noisyPhoto) {
      const noise = await sharp({ create: { width, height, channels: 3, background: { r: 0, g: 0, b: 0 }, noise: { type: 'gaussian', mean: 128, sigma: 40 } } }).png({ compressionLevel: 0 }).toBuffer();
      const noisy = await sharp(image).composite([{ input: noise, blend: 'overlay' }]).jpeg({ quality: 92 }).toBuffer();
      fs.writeFileSync(image, noisy);
    }
    const exported = (await step('export', dir)) as unknown as StepFigures & { file_mib: number; width: number; height: number };
    return { dir, analysis, export: exported };
  } finally {
    if (!options.keep) fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** The 24 MP pair's analysis and export (measurePsdExport's default size). */
export const measurePsdExport24mp = (options: { keep?: boolean } = {}) => measurePsdExport(options);

export async function benchPsdExport(): Promise<Record<string, unknown>> {
  const { analysis, export: exported } = await measurePsdExport24mp();
  return {
    what: '24 MP pair (30D CR2 + its JPEG upscaled to 6000x4000): the analysis, then the PSD export from its registration and heatmap, each in its own process; peak = VmHWM',
    analysis,
    export: exported,
    export_time_vs_analysis: { ratio: ratio(exported.ms, analysis.ms), load_average: exported.load_average },
    export_peak_vs_analysis_peak: { ratio: ratio(exported.peak_rss_mib, analysis.peak_rss_mib), load_average: exported.load_average },
    target_export_peak_mib: 1536,
  };
}

/** Child side: one step, its figures as JSON on stdout. */
async function child(name: string, dir: string): Promise<void> {
  const raw = new Uint8Array(fs.readFileSync(path.join(dir, 'raw')));
  const image = new Uint8Array(fs.readFileSync(path.join(dir, 'image.jpg')));
  if (name === 'analysis') {
    const { analyzePair } = await import('../src/analysis/pipeline.js');
    const { shutdownRawDecoders } = await import('../src/analysis/raw/index.js');
    const started = performance.now();
    const analysis = await analyzePair({ raw, image });
    const ms = Math.round(performance.now() - started);
    shutdownRawDecoders();
    const h = analysis.artifacts.heatmap!;
    // Stored as the verification activity stores it: a PNG of the working grid.
    fs.writeFileSync(path.join(dir, 'heatmap.png'), await sharp(Buffer.from(h.data), { raw: { width: h.width, height: h.height, channels: 3 } }).png().toBuffer());
    fs.writeFileSync(path.join(dir, 'registration.json'), JSON.stringify(analysis.artifacts.transform));
    // The full-size RAW rendering, kept as the analysis thread keeps it (a lossless PNG): what the export reads once the RAW is discarded.
    const r = analysis.artifacts.reference!;
    const rendition = await sharp(Buffer.from(r.data.buffer, r.data.byteOffset, r.data.byteLength), { raw: { width: r.width, height: r.height, channels: 3 } }).png().toBuffer();
    fs.writeFileSync(path.join(dir, 'raw-rendition.png'), rendition);
    process.stdout.write(JSON.stringify({ ms, peak_rss_mib: peakMiB(), assurance_level: analysis.grade.assurance_level, raw_rendition_mib: +(rendition.length / 2 ** 20).toFixed(1) }));
    return;
  }
  const { renderInThread } = await import('../src/features/psd-export/psd-file.js');
  const heatmapPng = new Uint8Array(fs.readFileSync(path.join(dir, 'heatmap.png')));
  const png = new Uint8Array(fs.readFileSync(path.join(dir, 'raw-rendition.png')));
  const { imageToReference } = JSON.parse(fs.readFileSync(path.join(dir, 'registration.json'), 'utf8'));
  const facts = { verificationId: '00000000-0000-4000-8000-000000000000', shortCode: 'L-BENCH1', assuranceLevel: 'verified', name: 'image.jpg' };
  const started = performance.now();
  const psd = await renderInThread({ rawLayer: { kind: 'rendition', png }, image, heatmapPng, imageToReference, facts }, new AbortController().signal);
  // Written as the blob store writes it: the parts one after another, no concatenated copy.
  const fd = fs.openSync(path.join(dir, 'export.psd'), 'w');
  for (const part of psd.parts) fs.writeSync(fd, part);
  fs.closeSync(fd);
  const ms = Math.round(performance.now() - started);
  const bytes = psd.parts.reduce((n, p) => n + p.length, 0);
  process.stdout.write(JSON.stringify({ ms, peak_rss_mib: peakMiB(), file_mib: Math.round(bytes / 2 ** 20), width: psd.width, height: psd.height }));
}

if (process.argv[1] === here) {
  const [name, dir] = process.argv.slice(2);
  if (name && dir) await child(name, dir);
  else process.stdout.write(JSON.stringify(await benchPsdExport(), null, 2) + '\n');
}
