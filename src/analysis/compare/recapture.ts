/**
 * Recapture detection: a photo of a screen shows the display's pixel grid or its moiré, a photo
 * of a print shows the halftone screen; both are strong, isolated periodic peaks in the spectrum
 * of the high-passed luminance that natural scenes lack. Checked on the RAW rendering (what the
 * sensor saw: no JPEG block grid there) and reported for the image too.
 */
import { fft2d } from '../image/fft.js';
import { boxBlur, lumaOf } from '../image/ops.js';
import type { AnalysisResult, Plane, RgbImage } from '../types.js';
import { round } from './ssim.js';

export const recaptureThresholds = {
  /** Peak power over the median power of its frequency ring: a periodic structure. */
  peakRatio: 60,
  /** A recapture shows at least this many such peaks (a grid has harmonics). */
  minPeaks: 2,
} as const;

const tile = 256;
/** Frequencies below this radius (cycles per tile) are scene layout, not a screen. */
const minRadius = 12;

export interface PeriodicityEvidence {
  peaks: { fx: number; fy: number; ratio: number }[];
  strongest: number;
}

export function analyzeRecapture(reference: RgbImage, image: RgbImage): AnalysisResult {
  const ref = periodicPeaks(lumaOf(reference), false);
  const img = periodicPeaks(lumaOf(image), true);
  const recaptured = ref.peaks.length >= recaptureThresholds.minPeaks;
  return {
    analysis: 'recapture',
    result: !recaptured,
    confidence_score: round(recaptured ? Math.min(1, 0.5 + ref.peaks.length / 10) : Math.min(1, 0.6 + 0.4 * (1 - ref.strongest / recaptureThresholds.peakRatio))),
    details: {
      method: 'peak-to-ring-median ratio in the averaged 256x256 spectrum of the high-passed luminance',
      raw_rendering: { periodic_peaks: ref.peaks.length, strongest_ratio: round(ref.strongest, 1), peaks: ref.peaks.slice(0, 8) },
      image: { periodic_peaks: img.peaks.length, strongest_ratio: round(img.strongest, 1), peaks: img.peaks.slice(0, 8) },
      thresholds: recaptureThresholds,
    },
  };
}

/**
 * Welch-averaged power spectrum over up to 9 tiles; peaks are local maxima whose power exceeds
 * `peakRatio` times the median of their ring. With `skipBlockGrid`, the JPEG 8x8 block
 * frequencies (multiples of tile/8) are ignored.
 */
export function periodicPeaks(luma: Plane, skipBlockGrid: boolean): PeriodicityEvidence {
  const hp = highPass(luma);
  const power = new Float64Array(tile * tile);
  const nx = Math.min(3, Math.floor(luma.width / tile));
  const ny = Math.min(3, Math.floor(luma.height / tile));
  if (nx < 1 || ny < 1) return { peaks: [], strongest: 0 };
  const hann = Float64Array.from({ length: tile }, (_, i) => 0.5 - 0.5 * Math.cos((2 * Math.PI * (i + 0.5)) / tile));
  for (let ty = 0; ty < ny; ty++) {
    for (let tx = 0; tx < nx; tx++) {
      const x0 = Math.floor(((luma.width - tile) * (tx + 0.5)) / nx);
      const y0 = Math.floor(((luma.height - tile) * (ty + 0.5)) / ny);
      const re = new Float64Array(tile * tile);
      const im = new Float64Array(tile * tile);
      for (let y = 0; y < tile; y++)
        for (let x = 0; x < tile; x++) re[y * tile + x] = hp.data[(y + y0) * luma.width + x + x0]! * hann[x]! * hann[y]!;
      fft2d(re, im, tile, tile);
      for (let i = 0; i < power.length; i++) power[i]! += re[i]! * re[i]! + im[i]! * im[i]!;
    }
  }
  // Ring medians (radius in whole cycles per tile).
  const rings: number[][] = Array.from({ length: tile }, () => []);
  const freq = (k: number) => (k > tile / 2 ? k - tile : k);
  for (let y = 0; y < tile; y++) for (let x = 0; x < tile; x++) rings[Math.round(Math.hypot(freq(x), freq(y)))]!.push(power[y * tile + x]!);
  const ringMedian = rings.map((r) => (r.length ? [...r].sort((a, b) => a - b)[r.length >> 1]! : 0));
  const peaks: { fx: number; fy: number; ratio: number }[] = [];
  let strongest = 0;
  const grid = tile / 8;
  for (let y = 0; y <= tile / 2; y++) {
    for (let x = 0; x < tile; x++) {
      const fx = freq(x);
      const fy = y;
      const r = Math.hypot(fx, fy);
      if (r < minRadius || r > tile / 2 - 2) continue;
      if (skipBlockGrid && isNearMultiple(fx, grid) && isNearMultiple(fy, grid)) continue;
      const v = power[y * tile + x]!;
      let isMax = true;
      for (let dy = -1; dy <= 1 && isMax; dy++)
        for (let dx = -1; dx <= 1; dx++) {
          if (!dx && !dy) continue;
          const yy = (y + dy + tile) % tile;
          const xx = (x + dx + tile) % tile;
          if (power[yy * tile + xx]! > v) { isMax = false; break; }
        }
      if (!isMax) continue;
      const ratio = v / Math.max(1e-20, ringMedian[Math.round(r)]!);
      strongest = Math.max(strongest, ratio);
      if (ratio >= recaptureThresholds.peakRatio) peaks.push({ fx, fy, ratio: round(ratio, 1) });
    }
  }
  peaks.sort((a, b) => b.ratio - a.ratio);
  return { peaks, strongest };
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
