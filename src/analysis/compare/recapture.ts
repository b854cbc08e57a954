/**
 * Recapture detection: a photo of a screen shows the display's pixel grid or its moiré, a photo
 * of a print shows the halftone screen; both are strong, isolated periodic peaks in the spectrum
 * of the high-passed luminance that natural scenes lack. A recapture fills the frame, so the same
 * peaks must recur in most tiles across it; a screen or a printed page that is merely part of the
 * scene shows them only in the tiles it covers. Checked on the RAW rendering (what the sensor
 * saw: no JPEG block grid there) and reported for the image too.
 */
import { fft2d } from '../image/fft.js';
import { boxBlur, lumaOf } from '../image/ops.js';
import type { AnalysisResult, Plane, RgbImage } from '../types.js';
import { round } from './ssim.js';

/** Calibration: docs/analysis.md ("Recapture"). */
export const recaptureThresholds = {
  /** Peak power over the median power of its frequency ring, in the averaged spectrum. */
  peakRatio: 100,
  /** The same peak counts in a single tile's spectrum above this ratio. */
  tilePeakRatio: 40,
  /** Share of the tiles that must show a peak for it to span the frame. */
  minCoverage: 2 / 3,
  /** A recapture shows at least this many frame-spanning peaks (a grid has harmonics). */
  minPeaks: 2,
} as const;

const tile = 256;
/** Tiles per side at most: 16 tiles spread over the frame. */
const maxTilesPerSide = 4;
/** Fewer tiles than this cannot tell a frame-filling pattern from a screen in the scene. */
const minTiles = 4;
/** Frequencies below this radius (cycles per tile) are scene layout, not a screen. */
const minRadius = 12;

export interface PeriodicPeak {
  fx: number;
  fy: number;
  ratio: number;
  /** Share of tiles whose own spectrum shows this peak. */
  coverage: number;
}

export interface PeriodicityEvidence {
  tiles: number;
  /** Peaks of the averaged spectrum above `peakRatio`, strongest first. */
  peaks: PeriodicPeak[];
  /** Those of them present across the frame. */
  spanning: PeriodicPeak[];
  strongest: number;
}

export function analyzeRecapture(reference: RgbImage, image: RgbImage): AnalysisResult {
  const ref = periodicPeaks(lumaOf(reference), false);
  const img = periodicPeaks(lumaOf(image), true);
  const judged = ref.tiles >= minTiles;
  const recaptured = judged && ref.spanning.length >= recaptureThresholds.minPeaks;
  return {
    analysis: 'recapture',
    result: !recaptured,
    confidence_score: round(confidence(ref, judged, recaptured)),
    details: {
      method: 'peak-to-ring-median ratio in the averaged 256x256 spectrum of the high-passed luminance, confirmed tile by tile',
      ...(judged ? {} : { note: `the RAW rendering holds ${ref.tiles} of the ${minTiles} tiles needed to judge` }),
      raw_rendering: summary(ref),
      image: summary(img),
      thresholds: recaptureThresholds,
    },
  };
}

function confidence(ref: PeriodicityEvidence, judged: boolean, recaptured: boolean): number {
  if (!judged) return 0.5;
  if (recaptured) return Math.min(1, 0.5 + ref.spanning.length / 10);
  // Confident when nothing periodic was found; less so when strong local peaks exist.
  const local = ref.peaks.length ? 0.2 : 0.4 * (1 - Math.min(1, ref.strongest / recaptureThresholds.peakRatio));
  return 0.6 + local;
}

function summary(e: PeriodicityEvidence) {
  return {
    tiles: e.tiles,
    periodic_peaks: e.peaks.length,
    frame_spanning_peaks: e.spanning.length,
    strongest_ratio: round(e.strongest, 1),
    peaks: e.peaks.slice(0, 8),
  };
}

/**
 * Peaks of the averaged power spectrum over up to 16 tiles: local maxima whose power exceeds
 * `peakRatio` times the median of their ring; each is then looked for in every tile's own
 * spectrum. With `skipBlockGrid`, the JPEG 8x8 block frequencies (multiples of tile/8) are ignored.
 */
export function periodicPeaks(luma: Plane, skipBlockGrid: boolean): PeriodicityEvidence {
  const spectra = tileSpectra(highPass(luma));
  if (!spectra.length) return { tiles: 0, peaks: [], spanning: [], strongest: 0 };
  const mean = new Float64Array(tile * tile);
  for (const s of spectra) for (let i = 0; i < mean.length; i++) mean[i]! += s[i]! / spectra.length;
  const meanRings = ringMedians(mean);
  const tileRings = spectra.map(ringMedians);
  const peaks: PeriodicPeak[] = [];
  let strongest = 0;
  const grid = tile / 8;
  for (let y = 0; y <= tile / 2; y++) {
    for (let x = 0; x < tile; x++) {
      const fx = signedFrequency(x);
      const r = Math.hypot(fx, y);
      if (r < minRadius || r > tile / 2 - 2) continue;
      if (skipBlockGrid && isNearMultiple(fx, grid) && isNearMultiple(y, grid)) continue;
      if (neighbourhoodMax(mean, x, y) > mean[y * tile + x]!) continue; // not a local maximum
      const ring = Math.round(r);
      const ratio = mean[y * tile + x]! / Math.max(1e-20, meanRings[ring]!);
      strongest = Math.max(strongest, ratio);
      if (ratio < recaptureThresholds.peakRatio) continue;
      const present = spectra.filter((s, t) => neighbourhoodMax(s, x, y) / Math.max(1e-20, tileRings[t]![ring]!) >= recaptureThresholds.tilePeakRatio);
      peaks.push({ fx, fy: y, ratio: round(ratio, 1), coverage: round(present.length / spectra.length, 2) });
    }
  }
  peaks.sort((a, b) => b.ratio - a.ratio);
  return { tiles: spectra.length, peaks, spanning: peaks.filter((p) => p.coverage >= recaptureThresholds.minCoverage), strongest };
}

/** Hann-windowed power spectra of up to 4x4 tiles spread evenly over the frame. */
function tileSpectra(hp: Plane): Float64Array[] {
  const nx = Math.min(maxTilesPerSide, Math.floor(hp.width / tile));
  const ny = Math.min(maxTilesPerSide, Math.floor(hp.height / tile));
  const hann = Float64Array.from({ length: tile }, (_, i) => 0.5 - 0.5 * Math.cos((2 * Math.PI * (i + 0.5)) / tile));
  const spectra: Float64Array[] = [];
  for (let ty = 0; ty < ny; ty++) {
    for (let tx = 0; tx < nx; tx++) {
      const x0 = Math.floor(((hp.width - tile) * (tx + 0.5)) / nx);
      const y0 = Math.floor(((hp.height - tile) * (ty + 0.5)) / ny);
      const re = new Float64Array(tile * tile);
      const im = new Float64Array(tile * tile);
      for (let y = 0; y < tile; y++)
        for (let x = 0; x < tile; x++) re[y * tile + x] = hp.data[(y + y0) * hp.width + x + x0]! * hann[x]! * hann[y]!;
      fft2d(re, im, tile, tile);
      for (let i = 0; i < re.length; i++) re[i] = re[i]! * re[i]! + im[i]! * im[i]!;
      spectra.push(re);
    }
  }
  return spectra;
}

const signedFrequency = (k: number) => (k > tile / 2 ? k - tile : k);

/** Median power of each ring of whole cycles per tile. */
function ringMedians(power: Float64Array): number[] {
  const rings: number[][] = Array.from({ length: tile }, () => []);
  for (let y = 0; y < tile; y++)
    for (let x = 0; x < tile; x++) rings[Math.round(Math.hypot(signedFrequency(x), signedFrequency(y)))]!.push(power[y * tile + x]!);
  return rings.map((r) => (r.length ? r.sort((a, b) => a - b)[r.length >> 1]! : 0));
}

/** Largest power in the 3x3 bins around (x, y); a tile's peak may sit one bin off the average's. */
function neighbourhoodMax(power: Float64Array, x: number, y: number): number {
  let m = 0;
  for (let dy = -1; dy <= 1; dy++)
    for (let dx = -1; dx <= 1; dx++) m = Math.max(m, power[((y + dy + tile) % tile) * tile + ((x + dx + tile) % tile)]!);
  return m;
}

function isNearMultiple(v: number, m: number): boolean {
  const r = ((v % m) + m) % m;
  return r <= 1 || r >= m - 1;
}

function highPass(p: Plane): Plane {
  const m = boxBlur(p, 2);
  const out = { width: p.width, height: p.height, data: new Float32Array(p.data.length) };
  for (let i = 0; i < p.data.length; i++) out.data[i] = p.data[i]! - m.data[i]!;
  return out;
}
