/**
 * The one bilinear warp (issue 37): the RAW reference sampled into another pixel grid through an
 * affine map, for the comparison frame (analysis/compare/frame.ts, the working grid every pixel
 * comparison runs on) and for the PSD export's registered rendition (the photo's full grid).
 */
import { type Affine, compose, gridScale } from './affine.js';
import { fitSize, resizeRgb } from './ops.js';
import type { RgbImage } from '../types.js';

/**
 * The level of `src` to sample through `toSrc` (output pixel → `src` pixel): `src` itself, or,
 * when one output pixel spans more than 1.25 of its pixels, `src` resized to about one pixel per
 * output pixel (sampling the full image at a coarser step would alias its noise and fine
 * texture); `toLevel` maps output pixels onto that level.
 */
export function samplingLevel(src: RgbImage, toSrc: Affine): { level: RgbImage; toLevel: Affine } {
  const step = Math.sqrt(Math.abs(toSrc[0] * toSrc[4] - toSrc[1] * toSrc[3]));
  let level = src;
  if (step > 1.25) {
    const s = fitSize(src.width, src.height, Math.round(Math.max(src.width, src.height) / step));
    level = resizeRgb(src, s.width, s.height);
  }
  return { level, toLevel: compose(gridScale(src.width, src.height, level.width, level.height), toSrc) };
}

/**
 * Bilinear warp: output pixel p of a width × height grid takes src(m(p)), for every p whose
 * m(p) lies within half a pixel of `src`; the others are left as they are in `out`. Writes the
 * three channels into `out` at `channels` values a pixel (with 4, the fourth is set to 255:
 * opaque where covered), marks covered pixels 1 in `mask` when given, and answers how many
 * pixels were covered. Each value is rounded to the nearest integer: half up (Math.round) into a
 * Uint8Array, which would otherwise truncate; half to even, the array's own rounding, into a
 * Uint8ClampedArray.
 */
export function warpBilinear(
  src: RgbImage,
  m: Affine,
  width: number,
  height: number,
  out: Uint8Array | Uint8ClampedArray,
  channels: 3 | 4,
  mask?: Uint8Array,
): number {
  const roundHalfUp = !(out instanceof Uint8ClampedArray);
  const sw = src.width;
  const sh = src.height;
  const d = src.data;
  let covered = 0;
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const u = m[0] * x + m[1] * y + m[2];
      const v = m[3] * x + m[4] * y + m[5];
      if (u < -0.5 || v < -0.5 || u > sw - 0.5 || v > sh - 0.5) continue;
      const uc = Math.min(sw - 1, Math.max(0, u));
      const vc = Math.min(sh - 1, Math.max(0, v));
      const x0 = Math.floor(uc);
      const y0 = Math.floor(vc);
      const x1 = Math.min(sw - 1, x0 + 1);
      const y1 = Math.min(sh - 1, y0 + 1);
      const fx = uc - x0;
      const fy = vc - y0;
      const o = (y * width + x) * channels;
      const p00 = (y0 * sw + x0) * 3;
      const p01 = (y0 * sw + x1) * 3;
      const p10 = (y1 * sw + x0) * 3;
      const p11 = (y1 * sw + x1) * 3;
      for (let c = 0; c < 3; c++) {
        const a = d[p00 + c]!;
        const b = d[p01 + c]!;
        const e = d[p10 + c]!;
        const f = d[p11 + c]!;
        const value = a + (b - a) * fx + (e - a) * fy + (a - b - e + f) * fx * fy;
        out[o + c] = roundHalfUp ? Math.round(value) : value;
      }
      if (channels === 4) out[o + 3] = 255;
      if (mask) mask[y * width + x] = 1;
      covered++;
    }
  }
  return covered;
}
