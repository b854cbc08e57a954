/**
 * Pixel primitives over typed arrays: luminance, area downscaling, bilinear sampling,
 * blur. Pure functions; every analysis builds on these.
 */
import type { Plane, RgbImage } from '../types.js';

export function makePlane(width: number, height: number): Plane {
  return { width, height, data: new Float32Array(width * height) };
}

/** Rec.709 luma of sRGB-encoded values, scaled to 0..1 (gamma-encoded, as SSIM expects). */
export function lumaOf(img: RgbImage): Plane {
  const out = makePlane(img.width, img.height);
  const s = img.data;
  const d = out.data;
  for (let i = 0, j = 0; i < d.length; i++, j += 3) {
    d[i] = (0.2126 * s[j]! + 0.7152 * s[j + 1]! + 0.0722 * s[j + 2]!) / 255;
  }
  return out;
}

/** One colour channel (0 = R, 1 = G, 2 = B) as a 0..1 plane. */
export function channelOf(img: RgbImage, c: 0 | 1 | 2): Plane {
  const out = makePlane(img.width, img.height);
  const s = img.data;
  const d = out.data;
  for (let i = 0, j = c; i < d.length; i++, j += 3) d[i] = s[j]! / 255;
  return out;
}

/**
 * Area-average resize of a plane to (w, h). Each output pixel averages the input footprint
 * it covers, so downscaling does not alias (noise and fine texture average out as in a real
 * downscaled export). Separable: rows then columns.
 */
export function resizePlane(src: Plane, w: number, h: number): Plane {
  if (w === src.width && h === src.height) return { width: w, height: h, data: src.data.slice() };
  const tmp = new Float32Array(w * src.height);
  resampleAxis(src.data, src.width, src.height, 1, src.width, tmp, w, 1, w); // rows
  const out = makePlane(w, h);
  resampleAxis(tmp, src.height, w, w, 1, out.data, h, w, 1); // columns
  return out;
}

/**
 * Resample along one axis. `n` samples per line, `lines` lines; element k of line l is at
 * l*lineStride + k*step (input) / l*outLineStride + k*outStep (output).
 */
function resampleAxis(
  src: Float32Array,
  n: number,
  lines: number,
  inStep: number,
  lineStride: number,
  dst: Float32Array,
  m: number,
  outStep: number,
  outLineStride: number,
): void {
  const ratio = n / m;
  const starts = new Int32Array(m);
  const ends = new Int32Array(m);
  const wFirst = new Float32Array(m);
  const wLast = new Float32Array(m);
  for (let k = 0; k < m; k++) {
    if (ratio >= 1) {
      const a = k * ratio;
      const b = a + ratio;
      const ia = Math.floor(a);
      const ib = Math.min(n - 1, Math.ceil(b) - 1);
      starts[k] = ia;
      ends[k] = ib;
      wFirst[k] = ia + 1 - a;
      wLast[k] = b - ib;
    } else {
      // Upscale: linear interpolation between neighbours (weights stored in wFirst).
      const x = Math.min(n - 1, Math.max(0, (k + 0.5) * ratio - 0.5));
      const ia = Math.floor(x);
      starts[k] = ia;
      ends[k] = Math.min(n - 1, ia + 1);
      wFirst[k] = 1 - (x - ia);
      wLast[k] = x - ia;
    }
  }
  for (let l = 0; l < lines; l++) {
    const base = l * lineStride;
    const obase = l * outLineStride;
    for (let k = 0; k < m; k++) {
      const a = starts[k]!;
      const b = ends[k]!;
      let v: number;
      if (ratio >= 1) {
        if (a === b) v = src[base + a * inStep]!;
        else {
          let acc = src[base + a * inStep]! * wFirst[k]! + src[base + b * inStep]! * wLast[k]!;
          let wsum = wFirst[k]! + wLast[k]!;
          for (let i = a + 1; i < b; i++) {
            acc += src[base + i * inStep]!;
            wsum += 1;
          }
          v = acc / wsum;
        }
      } else {
        v = src[base + a * inStep]! * wFirst[k]! + src[base + b * inStep]! * wLast[k]!;
      }
      dst[obase + k * outStep] = v;
    }
  }
}

/** Size that fits (w, h) into a long side of `maxSide`, never enlarging. */
export function fitSize(w: number, h: number, maxSide: number): { width: number; height: number; factor: number } {
  const f = Math.min(1, maxSide / Math.max(w, h));
  return { width: Math.max(1, Math.round(w * f)), height: Math.max(1, Math.round(h * f)), factor: f };
}

export function downscalePlane(p: Plane, maxSide: number): Plane {
  const s = fitSize(p.width, p.height, maxSide);
  return resizePlane(p, s.width, s.height);
}

export function resizeRgb(img: RgbImage, w: number, h: number): RgbImage {
  const out = new Uint8Array(w * h * 3);
  for (const c of [0, 1, 2] as const) {
    const r = resizePlane(channelOf(img, c), w, h);
    for (let i = 0, j = c; i < r.data.length; i++, j += 3) out[j] = Math.round(clamp01(r.data[i]!) * 255);
  }
  return { width: w, height: h, data: out };
}

export function downscaleRgb(img: RgbImage, maxSide: number): RgbImage {
  const s = fitSize(img.width, img.height, maxSide);
  if (s.factor === 1) return img;
  return resizeRgb(img, s.width, s.height);
}

/** Bilinear sample with edge clamping; (x, y) in pixel-centre coordinates. */
export function sampleBilinear(p: Plane, x: number, y: number): number {
  const w = p.width;
  const h = p.height;
  const xc = x < 0 ? 0 : x > w - 1 ? w - 1 : x;
  const yc = y < 0 ? 0 : y > h - 1 ? h - 1 : y;
  const x0 = Math.floor(xc);
  const y0 = Math.floor(yc);
  const x1 = x0 + 1 < w ? x0 + 1 : x0;
  const y1 = y0 + 1 < h ? y0 + 1 : y0;
  const fx = xc - x0;
  const fy = yc - y0;
  const d = p.data;
  const a = d[y0 * w + x0]!;
  const b = d[y0 * w + x1]!;
  const c = d[y1 * w + x0]!;
  const e = d[y1 * w + x1]!;
  return a + (b - a) * fx + (c - a) * fy + (a - b - c + e) * fx * fy;
}

/** Box blur of radius r (separable, running sums): the local mean used by residual filters. */
export function boxBlur(p: Plane, r: number): Plane {
  const { width: w, height: h } = p;
  const tmp = new Float32Array(w * h);
  const out = makePlane(w, h);
  for (let y = 0; y < h; y++) {
    const row = y * w;
    let acc = 0;
    let cnt = 0;
    for (let x = 0; x <= Math.min(r, w - 1); x++) {
      acc += p.data[row + x]!;
      cnt++;
    }
    for (let x = 0; x < w; x++) {
      tmp[row + x] = acc / cnt;
      const add = x + r + 1;
      const rem = x - r;
      if (add < w) {
        acc += p.data[row + add]!;
        cnt++;
      }
      if (rem >= 0) {
        acc -= p.data[row + rem]!;
        cnt--;
      }
    }
  }
  for (let x = 0; x < w; x++) {
    let acc = 0;
    let cnt = 0;
    for (let y = 0; y <= Math.min(r, h - 1); y++) {
      acc += tmp[y * w + x]!;
      cnt++;
    }
    for (let y = 0; y < h; y++) {
      out.data[y * w + x] = acc / cnt;
      const add = y + r + 1;
      const rem = y - r;
      if (add < h) {
        acc += tmp[add * w + x]!;
        cnt++;
      }
      if (rem >= 0) {
        acc -= tmp[rem * w + x]!;
        cnt--;
      }
    }
  }
  return out;
}

export function median(values: ArrayLike<number>): number {
  const a = Float64Array.from(values as ArrayLike<number>).sort();
  if (a.length === 0) return NaN;
  const m = a.length >> 1;
  return a.length % 2 ? a[m]! : (a[m - 1]! + a[m]!) / 2;
}

export function clamp01(v: number): number {
  return v < 0 ? 0 : v > 1 ? 1 : v;
}
