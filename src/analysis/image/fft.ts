/**
 * In-place radix-2 complex FFT and a 2D wrapper. Sizes are powers of two (registration's search
 * canvas, recapture's spectrum tiles). Float64 for accuracy of phase correlation peaks.
 */

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
