/**
 * Sensor pattern: the noise residual (image minus its local mean) of the JPEG against that of
 * the reference rendered from the RAW, registered at the JPEG's own scale. A JPEG developed
 * from this RAW carries the very same noise realisation (shot noise, read noise and the
 * sensor's fixed pattern), so the residuals correlate; another exposure of the same scene, a
 * re-shoot or a re-render from other data does not. Heavy denoising, strong downscaling or
 * compression wash the residual out: then the test is inconclusive (null), never false.
 * The 3x3 residual also holds the finest scene detail, which every capture of the scene shares:
 * the 3-pixel-offset ratio rules out coarse structure only, so a pass is strong evidence of the
 * same pixels, weaker evidence of the same exposure (docs/analysis.md, known weaknesses).
 */
import { type Affine, compose } from '../image/affine.js';
import { boxBlur, lumaOf } from '../image/ops.js';
import type { AnalysisResult, Plane, RgbImage } from '../types.js';
import { warpRgb } from './frame.js';
import { round } from './ssim.js';

export const sensorThresholds = {
  /** Residual correlation at or above which the noise is the same capture's. */
  minCorrelation: 0.08,
  /** ...and at least this many times the correlation at a 3-pixel offset (chance level). */
  minRatioToOffset: 3,
} as const;

const maxTile = 768;

/**
 * @param imageToReference full-resolution image pixel → full-resolution reference pixel.
 */
export function analyzeSensorPattern(reference: RgbImage, image: RgbImage, imageToReference: Affine): AnalysisResult {
  const tw = Math.min(maxTile, image.width);
  const th = Math.min(maxTile, image.height);
  const ox = (image.width - tw) >> 1;
  const oy = (image.height - th) >> 1;
  const tile = cropRgb(image, ox, oy, tw, th);
  const tileToRef = compose(imageToReference, [1, 0, ox, 0, 1, oy]);
  const scale = Math.sqrt(Math.abs(tileToRef[0] * tileToRef[4] - tileToRef[1] * tileToRef[3]));
  const { warped, mask, coverage } = warpRgb(reference, tileToRef, tw, th);
  if (coverage < 0.5) {
    return inconclusive('the reference covers too little of the image centre', { coverage: round(coverage) });
  }
  const a = residual(lumaOf(tile));
  const b = residual(lumaOf(warped));
  const aligned = correlate(a, b, mask, 0, 0);
  const offset = (Math.abs(correlate(a, b, mask, 3, 0)) + Math.abs(correlate(a, b, mask, 0, 3))) / 2;
  const ratio = aligned / Math.max(1e-4, offset);
  const details = {
    residual_correlation: round(aligned),
    offset_correlation: round(offset),
    ratio_to_offset: round(ratio, 2),
    reference_px_per_image_px: round(scale, 3),
    tile: { x: ox, y: oy, width: tw, height: th },
    thresholds: sensorThresholds,
  };
  if (aligned >= sensorThresholds.minCorrelation && ratio >= sensorThresholds.minRatioToOffset) {
    return { analysis: 'sensor_pattern', result: true, confidence_score: round(Math.min(1, 0.5 + aligned)), details };
  }
  return inconclusive('no shared noise residual at this scale (denoised, resampled or another capture)', details);
}

function inconclusive(note: string, details: Record<string, unknown>): AnalysisResult {
  return { analysis: 'sensor_pattern', result: null, confidence_score: 0, details: { ...details, note } };
}

function residual(p: Plane): Plane {
  const m = boxBlur(p, 1);
  const out = { width: p.width, height: p.height, data: new Float32Array(p.data.length) };
  for (let i = 0; i < p.data.length; i++) out.data[i] = p.data[i]! - m.data[i]!;
  return out;
}

function correlate(a: Plane, b: Plane, mask: Uint8Array, dx: number, dy: number): number {
  const w = a.width;
  let n = 0, sa = 0, sb = 0, saa = 0, sbb = 0, sab = 0;
  for (let y = 2; y < a.height - 2 - dy; y++) {
    for (let x = 2; x < w - 2 - dx; x++) {
      const i = y * w + x;
      const j = (y + dy) * w + x + dx;
      if (!mask[i] || !mask[j]) continue;
      const va = a.data[i]!;
      const vb = b.data[j]!;
      n++; sa += va; sb += vb; saa += va * va; sbb += vb * vb; sab += va * vb;
    }
  }
  if (n < 100) return 0;
  const cov = sab / n - (sa / n) * (sb / n);
  return cov / Math.sqrt(Math.max(1e-20, (saa / n - (sa / n) ** 2) * (sbb / n - (sb / n) ** 2)));
}

function cropRgb(img: RgbImage, x0: number, y0: number, w: number, h: number): RgbImage {
  const data = new Uint8Array(w * h * 3);
  for (let y = 0; y < h; y++) data.set(img.data.subarray(((y + y0) * img.width + x0) * 3, ((y + y0) * img.width + x0 + w) * 3), y * w * 3);
  return { width: w, height: h, data };
}
