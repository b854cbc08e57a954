/**
 * Forgeries derived from a real mosaic, made in the tests (never stored): each imitates a way
 * of posing non-sensor data as a CFA. Deterministic (seeded noise).
 */
import type { DecodedRaw } from '../../../src/analysis/types.js';

type Mosaic = Pick<DecodedRaw, 'cfa' | 'width' | 'height'>;

function at(m: Mosaic, x: number, y: number): number {
  const cx = Math.min(m.width - 1, Math.max(0, x));
  const cy = Math.min(m.height - 1, Math.max(0, y));
  return m.cfa[cy * m.width + cx]!;
}

/** Mean of the same-colour neighbours of (x, y) that a bilinear demosaic would use for `dx, dy` offsets. */
function bilinearAt(m: Mosaic, x: number, y: number, offsets: [number, number][]): number {
  let sum = 0;
  for (const [dx, dy] of offsets) sum += at(m, x + dx, y + dy);
  return sum / offsets.length;
}

const horizontal: [number, number][] = [[-1, 0], [1, 0]];
const cross: [number, number][] = [[-1, 0], [1, 0], [0, -1], [0, 1]];

/**
 * Bilinear demosaic, then a mosaic sampled one column over: every value is now an interpolated
 * colour, as when a rendered RGB image is posed as a CFA.
 */
export function demosaicedRemosaic(m: Mosaic): Uint16Array {
  const out = new Uint16Array(m.cfa.length);
  for (let y = 0; y < m.height; y++) {
    for (let x = 0; x < m.width; x++) {
      // Shifting by one column moves each site to a neighbour of the other column parity.
      const evenRow = (y & 1) === 0;
      const evenCol = (x & 1) === 0;
      // Original site colour class at (x, y): 0/3 = non-green (R or B), 1/2 = green.
      const green = evenRow !== evenCol;
      // The wanted colour is the one the original pattern has at x+1: green sites want a
      // horizontal neighbour's colour, non-green sites want green.
      out[y * m.width + x] = Math.round(green ? bilinearAt(m, x, y, horizontal) : bilinearAt(m, x, y, cross));
    }
  }
  return out;
}

function planeOf(m: Mosaic, plane: number): { w: number; h: number; data: Float64Array } {
  const w = m.width >> 1;
  const h = m.height >> 1;
  const data = new Float64Array(w * h);
  for (let y = 0; y < h; y++) for (let x = 0; x < w; x++) data[y * w + x] = m.cfa[(2 * y + (plane >> 1)) * m.width + 2 * x + (plane & 1)]!;
  return { w, h, data };
}

function interleave(planes: { w: number; h: number; data: Float64Array }[], width: number, height: number): Uint16Array {
  const out = new Uint16Array(width * height);
  for (let plane = 0; plane < 4; plane++) {
    const p = planes[plane]!;
    for (let y = 0; y < height >> 1; y++) {
      for (let x = 0; x < width >> 1; x++) {
        out[(2 * y + (plane >> 1)) * width + 2 * x + (plane & 1)] = Math.max(0, Math.min(65535, Math.round(p.data[y * p.w + x]!)));
      }
    }
  }
  return out;
}

/** The top-left quarter of each plane upscaled 2x (bilinear): same size, half the real detail. */
export function upscaled2x(m: Mosaic): Uint16Array {
  const planes = [0, 1, 2, 3].map((plane) => {
    const src = planeOf(m, plane);
    const data = new Float64Array(src.w * src.h);
    for (let y = 0; y < src.h; y++) {
      for (let x = 0; x < src.w; x++) {
        const sx = x / 2;
        const sy = y / 2;
        const x0 = Math.floor(sx);
        const y0 = Math.floor(sy);
        const fx = sx - x0;
        const fy = sy - y0;
        const v = (xx: number, yy: number): number => src.data[Math.min(src.h - 1, yy) * src.w + Math.min(src.w - 1, xx)]!;
        data[y * src.w + x] = (1 - fy) * ((1 - fx) * v(x0, y0) + fx * v(x0 + 1, y0)) + fy * ((1 - fx) * v(x0, y0 + 1) + fx * v(x0 + 1, y0 + 1));
      }
    }
    return { w: src.w, h: src.h, data };
  });
  return interleave(planes, m.width, m.height);
}

function boxBlurPlane(src: { w: number; h: number; data: Float64Array }, radius: number): Float64Array {
  const out = new Float64Array(src.data.length);
  for (let y = 0; y < src.h; y++) {
    for (let x = 0; x < src.w; x++) {
      let sum = 0;
      let n = 0;
      for (let dy = -radius; dy <= radius; dy++) {
        for (let dx = -radius; dx <= radius; dx++) {
          const xx = x + dx;
          const yy = y + dy;
          if (xx < 0 || yy < 0 || xx >= src.w || yy >= src.h) continue;
          sum += src.data[yy * src.w + xx]!;
          n++;
        }
      }
      out[y * src.w + x] = sum / n;
    }
  }
  return out;
}

/** Each plane box-blurred (3x3): a noise-free, synthesised-looking mosaic. */
export function smoothed(m: Mosaic): Uint16Array {
  const planes = [0, 1, 2, 3].map((plane) => {
    const src = planeOf(m, plane);
    return { ...src, data: boxBlurPlane(src, 1) };
  });
  return interleave(planes, m.width, m.height);
}

/** Seeded standard normal generator (mulberry32 + Box-Muller). */
function gaussian(seed: number): () => number {
  let a = seed >>> 0;
  const uniform = (): number => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return () => Math.sqrt(-2 * Math.log(uniform() + 1e-12)) * Math.cos(2 * Math.PI * uniform());
}

/** The smoothed mosaic plus signal-independent Gaussian noise: plausible grain, wrong physics. */
export function uniformNoise(m: Mosaic, sigma: number, seed = 7): Uint16Array {
  const base = smoothed(m);
  const next = gaussian(seed);
  const out = new Uint16Array(base.length);
  for (let i = 0; i < base.length; i++) out[i] = Math.max(0, Math.min(65535, Math.round(base[i]! + sigma * next())));
  return out;
}

/**
 * Copy-move on the mosaic: a rectangle (even-aligned, so every CFA colour lands on its own
 * colour) copied to another place, as a clone stamp or a pasted tile would do it.
 */
export function duplicatedRegion(m: Mosaic, from: { x: number; y: number; width: number; height: number }, to: { x: number; y: number }): Uint16Array {
  const out = m.cfa.slice();
  const fx = from.x & ~1;
  const fy = from.y & ~1;
  const tx = to.x & ~1;
  const ty = to.y & ~1;
  for (let y = 0; y < from.height; y++) {
    const src = (fy + y) * m.width + fx;
    out.set(m.cfa.subarray(src, src + from.width), (ty + y) * m.width + tx);
  }
  return out;
}
