/**
 * Perceptual hash (DCT pHash): 32x32 luminance, 2D DCT, the 8x8 lowest frequencies without DC,
 * thresholded at their median: 63 bits that survive tone, colour and resampling changes.
 * Both sides are hashed over the part of the frame the reference covers (the rest is filled
 * with the same constant on both sides), so crops and padding do not count.
 */
import type { AnalysisResult } from '../types.js';
import { resizePlane } from '../image/ops.js';
import type { ComparisonFrame } from './frame.js';
import { lumaArray } from './tone.js';
import { round } from './ssim.js';

export const phashThresholds = {
  /** At most this many of the 63 bits may differ. */
  maxDistance: 14,
} as const;

const bits = 63;

export function analyzePerceptualHash(frame: ComparisonFrame): AnalysisResult {
  const box = maskBox(frame.mask, frame.image.width, frame.image.height);
  if (!box) return { analysis: 'perceptual_hash', result: null, confidence_score: 0, details: { reason: 'no overlap' } };
  const img = lumaArray(frame.image.data);
  const ref = lumaArray(frame.reference.data);
  let fill = 0;
  let n = 0;
  for (let i = 0; i < img.length; i++) if (frame.mask[i]) { fill += img[i]!; n++; }
  fill /= n;
  const a = perceptualHash(crop(img, frame.mask, frame.image.width, box, fill));
  const b = perceptualHash(crop(ref, frame.mask, frame.image.width, box, fill));
  let distance = 0;
  for (let i = 0; i < bits; i++) if (a[i] !== b[i]) distance++;
  const similarity = 1 - distance / bits;
  return {
    analysis: 'perceptual_hash',
    result: distance <= phashThresholds.maxDistance,
    confidence_score: round(0.5 + 0.5 * Math.min(1, Math.abs(distance - phashThresholds.maxDistance - 0.5) / 10)),
    details: {
      algorithm: 'DCT pHash 32x32 → 8x8 (63 bits, DC excluded)',
      image_hash: toHex(a),
      reference_hash: toHex(b),
      hamming_distance: distance,
      similarity: round(similarity),
      thresholds: phashThresholds,
    },
  };
}

export function perceptualHash(p: { width: number; height: number; data: Float32Array }): Uint8Array {
  const small = resizePlane(p, 32, 32).data;
  const coeffs: number[] = [];
  for (let v = 0; v < 8; v++) {
    for (let u = 0; u < 8; u++) {
      if (u === 0 && v === 0) continue;
      let acc = 0;
      for (let y = 0; y < 32; y++) {
        const cy = Math.cos(((2 * y + 1) * v * Math.PI) / 64);
        for (let x = 0; x < 32; x++) acc += small[y * 32 + x]! * Math.cos(((2 * x + 1) * u * Math.PI) / 64) * cy;
      }
      coeffs.push(acc);
    }
  }
  const med = [...coeffs].sort((s, t) => s - t)[coeffs.length >> 1]!;
  return Uint8Array.from(coeffs, (c) => (c > med ? 1 : 0));
}

function maskBox(mask: Uint8Array, w: number, h: number) {
  let x0 = w, y0 = h, x1 = -1, y1 = -1;
  for (let y = 0; y < h; y++)
    for (let x = 0; x < w; x++)
      if (mask[y * w + x]) { x0 = Math.min(x0, x); x1 = Math.max(x1, x); y0 = Math.min(y0, y); y1 = Math.max(y1, y); }
  return x1 < 0 ? null : { x0, y0, x1, y1 };
}

function crop(v: Float32Array, mask: Uint8Array, w: number, b: { x0: number; y0: number; x1: number; y1: number }, fill: number) {
  const cw = b.x1 - b.x0 + 1;
  const ch = b.y1 - b.y0 + 1;
  const data = new Float32Array(cw * ch);
  for (let y = 0; y < ch; y++)
    for (let x = 0; x < cw; x++) {
      const i = (y + b.y0) * w + x + b.x0;
      data[y * cw + x] = mask[i] ? v[i]! : fill;
    }
  return { width: cw, height: ch, data };
}

function toHex(bitsArr: Uint8Array): string {
  let s = '';
  for (let i = 0; i < bitsArr.length; i += 4) {
    let nib = 0;
    for (let j = 0; j < 4; j++) nib = (nib << 1) | (bitsArr[i + j] ?? 0);
    s += nib.toString(16);
  }
  return s;
}
