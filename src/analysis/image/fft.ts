/**
 * In-place radix-2 complex FFT and a 2D wrapper. Sizes are powers of two; registration and
 * the spectral analyses pad to them. Float64 for accuracy of phase correlation peaks.
 */

export function isPowerOfTwo(n: number): boolean {
  return n > 0 && (n & (n - 1)) === 0;
}

export function nextPowerOfTwo(n: number): number {
  let p = 1;
  while (p < n) p <<= 1;
  return p;
}

const twiddleCache = new Map<number, { cos: Float64Array; sin: Float64Array; rev: Uint32Array }>();

function tables(n: number) {
  let t = twiddleCache.get(n);
  if (!t) {
    const cos = new Float64Array(n / 2);
    const sin = new Float64Array(n / 2);
    for (let i = 0; i < n / 2; i++) {
      cos[i] = Math.cos((2 * Math.PI * i) / n);
      sin[i] = Math.sin((2 * Math.PI * i) / n);
    }
    const rev = new Uint32Array(n);
    const bits = Math.log2(n);
    for (let i = 0; i < n; i++) {
      let r = 0;
      for (let b = 0; b < bits; b++) r |= ((i >> b) & 1) << (bits - 1 - b);
      rev[i] = r;
    }
    t = { cos, sin, rev };
    twiddleCache.set(n, t);
  }
  return t;
}

/** In-place 1D FFT of n contiguous values starting at `off`; inverse is scaled by 1/n. */
export function fft1d(re: Float64Array, im: Float64Array, n: number, off = 0, inverse = false): void {
  const { cos, sin, rev } = tables(n);
  for (let i = 0; i < n; i++) {
    const j = rev[i]!;
    if (j > i) {
      const a = off + i;
      const b = off + j;
      let t = re[a]!;
      re[a] = re[b]!;
      re[b] = t;
      t = im[a]!;
      im[a] = im[b]!;
      im[b] = t;
    }
  }
  const sign = inverse ? 1 : -1;
  for (let size = 2; size <= n; size <<= 1) {
    const half = size >> 1;
    const step = n / size;
    for (let k = 0, t = 0; k < half; k++, t += step) {
      const wr = cos[t]!;
      const wi = sign * sin[t]!;
      for (let a = off + k; a < off + n; a += size) {
        const b = a + half;
        const br = re[b]!;
        const bi = im[b]!;
        const xr = br * wr - bi * wi;
        const xi = br * wi + bi * wr;
        const ar = re[a]!;
        const ai = im[a]!;
        re[b] = ar - xr;
        im[b] = ai - xi;
        re[a] = ar + xr;
        im[a] = ai + xi;
      }
    }
  }
  if (inverse) {
    for (let i = off; i < off + n; i++) {
      re[i]! /= n;
      im[i]! /= n;
    }
  }
}

/** 2D FFT of a w x h complex array (row-major), both powers of two. Columns via a buffer. */
export function fft2d(re: Float64Array, im: Float64Array, w: number, h: number, inverse = false): void {
  for (let y = 0; y < h; y++) fft1d(re, im, w, y * w, inverse);
  const cr = new Float64Array(h);
  const ci = new Float64Array(h);
  for (let x = 0; x < w; x++) {
    for (let y = 0, i = x; y < h; y++, i += w) {
      cr[y] = re[i]!;
      ci[y] = im[i]!;
    }
    fft1d(cr, ci, h, 0, inverse);
    for (let y = 0, i = x; y < h; y++, i += w) {
      re[i] = cr[y]!;
      im[i] = ci[y]!;
    }
  }
}

/**
 * Phase correlation of two equally sized real arrays: returns the correlation surface whose
 * peak at (dx, dy) means b(x) ≈ a(x - d) (circular).
 */
export function phaseCorrelate(a: Float64Array, b: Float64Array, w: number, h: number): Float64Array {
  const ar = Float64Array.from(a);
  const ai = new Float64Array(a.length);
  const br = Float64Array.from(b);
  const bi = new Float64Array(b.length);
  fft2d(ar, ai, w, h);
  fft2d(br, bi, w, h);
  for (let i = 0; i < ar.length; i++) {
    // B * conj(A), normalised to unit magnitude.
    const r = br[i]! * ar[i]! + bi[i]! * ai[i]!;
    const im = bi[i]! * ar[i]! - br[i]! * ai[i]!;
    const m = Math.sqrt(r * r + im * im) + 1e-12;
    ar[i] = r / m;
    ai[i] = im / m;
  }
  fft2d(ar, ai, w, h, true);
  return ar;
}

export interface Peak {
  x: number;
  y: number;
  value: number;
}

/**
 * The k highest local maxima of a w x h surface (circular neighbourhood suppression of
 * `radius`), with sub-pixel refinement by a parabola fit on each axis.
 */
export function topPeaks(surface: Float64Array, w: number, h: number, k: number, radius = 3): Peak[] {
  const at = (xx: number, yy: number) => surface[((yy + h) % h) * w + ((xx + w) % w)]!;
  // Only 3x3 local maxima are candidates: sorting them is far cheaper than the whole surface.
  const candidates: number[] = [];
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const v = surface[y * w + x]!;
      let isMax = true;
      for (let dy = -1; dy <= 1 && isMax; dy++)
        for (let dx = -1; dx <= 1; dx++)
          if ((dx || dy) && at(x + dx, y + dy) > v) {
            isMax = false;
            break;
          }
      if (isMax) candidates.push(y * w + x);
    }
  }
  const order = candidates.sort((i, j) => surface[j]! - surface[i]!);
  const peaks: Peak[] = [];
  for (const i of order) {
    if (peaks.length >= k) break;
    const x = i % w;
    const y = (i - x) / w;
    const near = peaks.some((p) => {
      const dx = Math.min(Math.abs(Math.round(p.x) - x), w - Math.abs(Math.round(p.x) - x));
      const dy = Math.min(Math.abs(Math.round(p.y) - y), h - Math.abs(Math.round(p.y) - y));
      return dx <= radius && dy <= radius;
    });
    if (near) continue;
    const c = at(x, y);
    const sub = (m: number, p: number) => {
      const den = m - 2 * c + p;
      return Math.abs(den) < 1e-12 ? 0 : Math.max(-0.5, Math.min(0.5, (0.5 * (m - p)) / den));
    };
    peaks.push({ x: x + sub(at(x - 1, y), at(x + 1, y)), y: y + sub(at(x, y - 1), at(x, y + 1)), value: c });
  }
  return peaks;
}
