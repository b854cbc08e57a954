/**
 * Registration: the geometric map (similarity, possibly mirrored) from image pixels to reference
 * pixels, for exports that were scaled, cropped, rotated by any angle and/or mirrored. The
 * pipeline calls it on both pictures' luminance downscaled to the 1024-px working grid.
 *
 * 0. Near-white padding connected to the border (rotated, uncropped exports) is replaced by the
 *    photo's mean, and those pixels are left out of the final score.
 * 1. Coarse, on 256-px smoothed thumbnails: rotation candidates from gradient-orientation
 *    histograms (the two best peaks, each also + 180°, with and without a mirror), a log grid of
 *    scales, and for each hypothesis the translation by phase correlation of the image warped
 *    into the reference's small canvas (two hypotheses share one complex FFT).
 * 2. The eight highest correlation peaks, plus the eight full-frame right-angle maps, are ranked
 *    by normalised cross-correlation (NCC) over their overlap.
 * 3. Pattern-search refinement of the winner at 512 then 1024 px, scored by NCC on the image's
 *    gradient-rich pixels, down to sub-pixel steps (the sensor-noise comparison needs sub-pixel
 *    alignment on the working grid).
 * NCC is blind to gain and offset, so exposure, contrast, white balance and black-and-white
 * exports register like the camera's own JPEG.
 */
import { type Affine, apply, compose, gridScale, invert, similarityAbout } from './image/affine.js';
import { fft2d } from './image/fft.js';
import { boxBlur, downscalePlane, makePlane, sampleBilinear } from './image/ops.js';
import type { Plane } from './types.js';

export interface Registration {
  /** Image pixel (in the `image` plane given) → reference pixel (in the `reference` plane given). */
  transform: Affine;
  /** NCC of image and warped reference over the overlap, at the finest level (−1..1). */
  score: number;
  /** Fraction of image pixels that map inside the reference. */
  coverage: number;
}

const coarseSide = 256;
/** Candidates whose overlap is smaller than this fraction of the image are not considered. */
const minOverlap = 0.25;

export function registerImages(reference: Plane, inputImage: Plane): Registration {
  const image = neutraliseBorderFill(inputImage);
  const a1 = smooth(downscalePlane(reference, coarseSide));
  const b1 = smooth(downscalePlane(image, coarseSide));
  let best = coarseCandidate(a1, b1);
  // Refine on finer levels; each level's map is carried over with the grid scale changes.
  let prevA = a1;
  let prevB = b1;
  for (const side of [512, 1024]) {
    const aL = side >= Math.max(reference.width, reference.height) ? reference : downscalePlane(reference, side);
    const bL = side >= Math.max(image.width, image.height) ? image : downscalePlane(image, side);
    best = compose(
      gridScale(prevA.width, prevA.height, aL.width, aL.height),
      compose(best, gridScale(bL.width, bL.height, prevB.width, prevB.height)),
    );
    best = refine(aL, bL, best, side === 512 ? 4 : 1, side === 512 ? 0.1 : 0.02);
    prevA = aL;
    prevB = bL;
    if (aL === reference && bL === image) break;
  }
  const toInput = compose(
    gridScale(prevA.width, prevA.height, reference.width, reference.height),
    compose(best, gridScale(image.width, image.height, prevB.width, prevB.height)),
  );
  const { ncc, overlap } = nccOverlap(reference, image, toInput, 2, fillMask(inputImage));
  return { transform: toInput, score: ncc, coverage: overlap };
}

/**
 * Exports rotated without cropping (or letter-boxed) pad the canvas with a constant colour.
 * Its hard edge against the photo would dominate the correlations: flood-fill the constant
 * area from the border and replace it with the mean of the photo.
 */
function neutraliseBorderFill(p: Plane): Plane {
  const fill = fillMask(p);
  let sum = 0;
  let n = 0;
  for (let i = 0; i < fill.length; i++) if (!fill[i]) { sum += p.data[i]!; n++; }
  if (n === fill.length || n === 0) return p;
  const out = { width: p.width, height: p.height, data: p.data.slice() };
  for (let i = 0; i < fill.length; i++) if (fill[i]) out.data[i] = sum / n;
  return out;
}

/**
 * 1 where the pixel belongs to a flat near-white area connected to the image border (the
 * default canvas colour editors pad rotations with). Dark areas are left alone: clipped
 * shadows touching the border look the same and hold registration information at their edges;
 * black padding did not disturb registration in the calibration runs.
 */
export function fillMask(p: Plane, tolerance = 0.01): Uint8Array {
  const { width: w, height: h, data } = p;
  const mask = new Uint8Array(w * h);
  const flat = (i: number) => {
    const x = i % w;
    const y = (i - x) / w;
    const v = data[i]!;
    for (const [dx, dy] of [[1, 0], [-1, 0], [0, 1], [0, -1]] as const) {
      const xx = x + dx;
      const yy = y + dy;
      if (xx >= 0 && yy >= 0 && xx < w && yy < h && Math.abs(data[yy * w + xx]! - v) > tolerance / 4) return false;
    }
    return true;
  };
  const seeds: number[] = [];
  for (let x = 0; x < w; x++) seeds.push(x, (h - 1) * w + x);
  for (let y = 0; y < h; y++) seeds.push(y * w, y * w + w - 1);
  for (const seed of seeds) {
    const value = data[seed]!;
    if (mask[seed] || value < 0.97 || !flat(seed)) continue;
    const stack = [seed];
    mask[seed] = 1;
    while (stack.length) {
      const i = stack.pop()!;
      const x = i % w;
      const y = (i - x) / w;
      for (const [dx, dy] of [[1, 0], [-1, 0], [0, 1], [0, -1]] as const) {
        const xx = x + dx;
        const yy = y + dy;
        const j = yy * w + xx;
        if (xx >= 0 && yy >= 0 && xx < w && yy < h && !mask[j] && Math.abs(data[j]! - value) <= tolerance) {
          mask[j] = 1;
          stack.push(j);
        }
      }
    }
  }
  // A flood that took most of the picture was a flat scene, not padding.
  let count = 0;
  for (const v of mask) count += v;
  return count > 0.6 * mask.length ? new Uint8Array(w * h) : mask;
}

function smooth(p: Plane): Plane {
  return boxBlur(p, 1);
}

/**
 * Steps 1 and 2: the best coarse map b1 → a1.
 * Rotation candidates come from gradient-orientation histograms (invariant to scale and
 * translation); scale is searched on a log grid, translation by phase correlation of the
 * image warped into the reference's frame (the reference's spectrum is computed once).
 * A log-polar Fourier–Mellin estimate was tried first: on self-similar scenes (foliage,
 * clouds) its scale peak locked onto 1, so the explicit scale grid replaced it.
 */
function coarseCandidate(a1: Plane, b1: Plane): Affine {
  const histA = orientationHistogram(a1);
  const histB = orientationHistogram(b1);
  const aSmall = downscalePlane(a1, searchSide);
  const canvasA = new Float64Array(searchCanvas * searchCanvas);
  const ax = (searchCanvas - aSmall.width) >> 1;
  const ay = (searchCanvas - aSmall.height) >> 1;
  windowInto(aSmall, canvasA, searchCanvas, ax, ay);
  const specA = spectrum(canvasA);
  const canvasToA1 = compose(gridScale(aSmall.width, aSmall.height, a1.width, a1.height), [1, 0, -ax, 0, 1, -ay]);
  const pyramidB = [b1, downscalePlane(b1, 128), downscalePlane(b1, 64), downscalePlane(b1, 32)];
  const hypotheses: Affine[] = [];
  for (const mirrored of [false, true]) {
    const h = mirrored ? mirrorHistogram(histB) : histB;
    const mirror: Affine = mirrored ? [-1, 0, b1.width - 1, 0, 1, 0] : [1, 0, 0, 0, 1, 0];
    for (const angle of rotationCandidates(histA, h, 2)) {
      for (const extra of [0, Math.PI]) {
        for (let k = 0; k < scaleSteps; k++) {
          // ρ: reference pixels per image pixel between the two 256-px thumbnails.
          const rho = minScale * Math.pow(maxScale / minScale, k / (scaleSteps - 1));
          const lin = compose(similarityAbout(0, 0, rho, angle + extra, 0, 0), mirror);
          const [ux, uy] = apply(lin, (b1.width - 1) / 2, (b1.height - 1) / 2);
          const centred: Affine = [...lin] as Affine;
          centred[2] += (a1.width - 1) / 2 - ux;
          centred[5] += (a1.height - 1) / 2 - uy;
          hypotheses.push(centred);
        }
      }
    }
  }
  const scored: { m: Affine; peak: number }[] = [];
  for (let i = 0; i < hypotheses.length; i += 2) {
    scored.push(...translateByPhase(specA, canvasToA1, pyramidB, hypotheses[i]!, hypotheses[i + 1] ?? hypotheses[i]!));
  }
  scored.sort((p, q) => q.peak - p.peak);
  let best = scored[0]!.m;
  let bestScore = -Infinity;
  for (const m of [...scored.slice(0, 8).map((s) => s.m), ...fullFrameCandidates(a1, b1)]) {
    const { ncc, overlap } = nccOverlap(a1, b1, m, 1);
    const score = overlap >= minOverlap ? ncc : -1 + overlap;
    if (score > bestScore) {
      bestScore = score;
      best = m;
    }
  }
  return best;
}

/**
 * The image filling the whole reference frame, as exported uncropped (camera JPEGs, resizes),
 * in each of the eight right-angle orientations. Phase correlation can lock onto a repeated
 * structure (text lines on a screen, tiles, fences) and miss this plainest map, so it is always
 * put to the NCC vote beside the correlation peaks.
 */
function fullFrameCandidates(a1: Plane, b1: Plane): Affine[] {
  const candidates: Affine[] = [];
  for (const mirrored of [false, true]) {
    const mirror: Affine = mirrored ? [-1, 0, b1.width - 1, 0, 1, 0] : [1, 0, 0, 0, 1, 0];
    for (let quarter = 0; quarter < 4; quarter++) {
      const theta = (quarter * Math.PI) / 2;
      const [bw, bh] = quarter % 2 ? [b1.height, b1.width] : [b1.width, b1.height];
      const rho = Math.sqrt((a1.width / bw) * (a1.height / bh));
      const lin = compose(similarityAbout(0, 0, rho, theta, 0, 0), mirror);
      const [ux, uy] = apply(lin, (b1.width - 1) / 2, (b1.height - 1) / 2);
      candidates.push([lin[0], lin[1], lin[2] + (a1.width - 1) / 2 - ux, lin[3], lin[4], lin[5] + (a1.height - 1) / 2 - uy]);
    }
  }
  return candidates;
}

const searchSide = 80;
const searchCanvas = 128;
const minScale = 0.2;
const maxScale = 2.4;
const scaleSteps = 16;
const histogramBins = 180;

function spectrum(real: Float64Array): { re: Float64Array; im: Float64Array } {
  const re = Float64Array.from(real);
  const im = new Float64Array(real.length);
  fft2d(re, im, searchCanvas, searchCanvas);
  return { re, im };
}

/**
 * Warp the image into the reference canvas through two hypotheses (b1 → a1, translation still
 * unknown), phase-correlate each with the reference, and return each map with the translation
 * found and the correlation peak height. Two real canvases share one complex FFT (real and
 * imaginary parts), and so do their two real correlation surfaces on the way back.
 */
function translateByPhase(
  specA: { re: Float64Array; im: Float64Array },
  canvasToA1: Affine,
  pyramidB: Plane[],
  first: Affine,
  second: Affine,
): { m: Affine; peak: number }[] {
  const n = searchCanvas;
  const re = new Float64Array(n * n);
  const im = new Float64Array(n * n);
  warpToCanvas(canvasToA1, pyramidB, first, re);
  warpToCanvas(canvasToA1, pyramidB, second, im);
  fft2d(re, im, n, n);
  const outRe = new Float64Array(n * n);
  const outIm = new Float64Array(n * n);
  for (let y = 0; y < n; y++) {
    for (let x = 0; x < n; x++) {
      const i = y * n + x;
      const j = ((n - y) % n) * n + ((n - x) % n);
      // Unpack the two real transforms: X = (Z + conj Z*)/2, Y = (Z − conj Z*)/(2i).
      const xr = 0.5 * (re[i]! + re[j]!);
      const xi = 0.5 * (im[i]! - im[j]!);
      const yr = 0.5 * (im[i]! + im[j]!);
      const yi = -0.5 * (re[i]! - re[j]!);
      const ar = specA.re[i]!;
      const ai = specA.im[i]!;
      // whitened cross-power spectra X·conj(A) and Y·conj(A)
      let r1 = xr * ar + xi * ai;
      let q1 = xi * ar - xr * ai;
      const m1 = Math.sqrt(r1 * r1 + q1 * q1) + 1e-12;
      r1 /= m1;
      q1 /= m1;
      let r2 = yr * ar + yi * ai;
      let q2 = yi * ar - yr * ai;
      const m2 = Math.sqrt(r2 * r2 + q2 * q2) + 1e-12;
      r2 /= m2;
      q2 /= m2;
      // Pack P1 + i·P2: both inverses are real, so they come back as real and imaginary parts.
      outRe[i] = r1 - q2;
      outIm[i] = q1 + r2;
    }
  }
  fft2d(outRe, outIm, n, n, true);
  return [
    withShift(canvasToA1, first, outRe),
    withShift(canvasToA1, second, outIm),
  ];
}

function withShift(canvasToA1: Affine, imageToA1: Affine, surface: Float64Array): { m: Affine; peak: number } {
  const n = searchCanvas;
  const peak = argmaxPeak(surface, n);
  const dx = peak.x > n / 2 ? peak.x - n : peak.x;
  const dy = peak.y > n / 2 ? peak.y - n : peak.y;
  // The image content sits d canvas pixels further than the reference: move the map by −d.
  const shift = compose(canvasToA1, compose([1, 0, -dx, 0, 1, -dy], invert(canvasToA1)));
  return { m: compose(shift, imageToA1), peak: peak.value };
}

/** Highest value of an n x n circular surface, refined to sub-pixel by parabola fits. */
function argmaxPeak(s: Float64Array, n: number): { x: number; y: number; value: number } {
  let best = 0;
  for (let i = 1; i < s.length; i++) if (s[i]! > s[best]!) best = i;
  const x = best % n;
  const y = (best - x) / n;
  const at = (xx: number, yy: number) => s[((yy + n) % n) * n + ((xx + n) % n)]!;
  const c = s[best]!;
  const sub = (m: number, p: number) => {
    const den = m - 2 * c + p;
    return Math.abs(den) < 1e-12 ? 0 : Math.max(-0.5, Math.min(0.5, (0.5 * (m - p)) / den));
  };
  return { x: x + sub(at(x - 1, y), at(x + 1, y)), y: y + sub(at(x, y - 1), at(x, y + 1)), value: c };
}

/** Image pixels seen through `imageToA1` on the reference canvas, windowed, into `out`. */
function warpToCanvas(canvasToA1: Affine, pyramidB: Plane[], imageToA1: Affine, out: Float64Array): void {
  const n = searchCanvas;
  const b1 = pyramidB[0]!;
  const canvasToB1 = compose(invert(imageToA1), canvasToA1);
  // Sample the pyramid level whose pixels are about one canvas pixel: no aliasing.
  const step = Math.hypot(canvasToB1[0], canvasToB1[3]);
  let level = b1;
  for (const p of pyramidB) if (p.width / b1.width >= 1 / step) level = p;
  const m = compose(gridScale(b1.width, b1.height, level.width, level.height), canvasToB1);
  const values = makePlane(n, n);
  const valid = new Uint8Array(n * n);
  const wMax = level.width - 1;
  const hMax = level.height - 1;
  for (let y = 0; y < n; y++) {
    for (let x = 0; x < n; x++) {
      const u = m[0] * x + m[1] * y + m[2];
      const v = m[3] * x + m[4] * y + m[5];
      if (u >= 0 && v >= 0 && u <= wMax && v <= hMax) {
        values.data[y * n + x] = sampleBilinear(level, u, v);
        valid[y * n + x] = 1;
      }
    }
  }
  windowInto(values, out, n, 0, 0, valid);
}

/** Gradient orientations mod π, weighted by √magnitude, smoothed, mean removed. */
function orientationHistogram(p: Plane): Float64Array {
  const h = new Float64Array(histogramBins);
  const w = p.width;
  for (let y = 1; y < p.height - 1; y++) {
    for (let x = 1; x < w - 1; x++) {
      const i = y * w + x;
      const gx = p.data[i + 1]! - p.data[i - 1]!;
      const gy = p.data[i + w]! - p.data[i - w]!;
      const mag = Math.hypot(gx, gy);
      if (mag < 1e-4) continue;
      let t = Math.atan2(gy, gx);
      if (t < 0) t += Math.PI;
      const f = (t / Math.PI) * histogramBins;
      const i0 = Math.floor(f) % histogramBins;
      const frac = f - Math.floor(f);
      h[i0]! += Math.sqrt(mag) * (1 - frac);
      h[(i0 + 1) % histogramBins]! += Math.sqrt(mag) * frac;
    }
  }
  const out = new Float64Array(histogramBins);
  for (let i = 0; i < histogramBins; i++) {
    for (let d = -2; d <= 2; d++) out[i]! += h[(i + d + histogramBins) % histogramBins]! * (3 - Math.abs(d));
  }
  let mean = 0;
  for (const v of out) mean += v / histogramBins;
  for (let i = 0; i < histogramBins; i++) out[i]! -= mean;
  return out;
}

/** A mirrored image (x ↦ −x) has orientation θ ↦ π − θ. */
function mirrorHistogram(h: Float64Array): Float64Array {
  const out = new Float64Array(h.length);
  for (let i = 0; i < h.length; i++) out[i] = h[(h.length - i) % h.length]!;
  return out;
}

/** Rotation angles (radians) at the `k` best circular correlation peaks of two histograms. */
function rotationCandidates(histA: Float64Array, histB: Float64Array, k: number): number[] {
  const n = histogramBins;
  const corr = new Float64Array(n);
  for (let s = 0; s < n; s++) {
    let acc = 0;
    for (let i = 0; i < n; i++) acc += histA[(i + s) % n]! * histB[i]!;
    corr[s] = acc;
  }
  const peaks: number[] = [];
  for (let s = 0; s < n; s++) {
    if (corr[s]! >= corr[(s + n - 1) % n]! && corr[s]! > corr[(s + 1) % n]!) peaks.push(s);
  }
  peaks.sort((p, q) => corr[q]! - corr[p]!);
  return peaks.slice(0, k).map((s) => {
    const prev = corr[(s + n - 1) % n]!;
    const next = corr[(s + 1) % n]!;
    const den = prev - 2 * corr[s]! + next;
    const sub = Math.abs(den) < 1e-12 ? 0 : (0.5 * (prev - next)) / den;
    return ((s + sub) / n) * Math.PI;
  });
}


/** Mean-removed, Hann-windowed copy of p placed at (ox, oy) in an n x n array. */
function windowInto(p: Plane, out: Float64Array, n: number, ox: number, oy: number, valid?: Uint8Array): void {
  let mean = 0;
  let count = 0;
  for (let i = 0; i < p.data.length; i++) {
    if (valid && !valid[i]) continue;
    mean += p.data[i]!;
    count++;
  }
  mean /= Math.max(1, count);
  for (let y = 0; y < p.height; y++) {
    const wy = 0.5 - 0.5 * Math.cos((2 * Math.PI * (y + 0.5)) / p.height);
    for (let x = 0; x < p.width; x++) {
      const i = y * p.width + x;
      if (valid && !valid[i]) continue;
      const wx = 0.5 - 0.5 * Math.cos((2 * Math.PI * (x + 0.5)) / p.width);
      const tx = x + ox;
      const ty = y + oy;
      if (tx >= 0 && ty >= 0 && tx < n && ty < n) out[ty * n + tx] = (p.data[i]! - mean) * wx * wy;
    }
  }
}


/** NCC over image pixels that map inside the reference; `stride` subsamples the image grid. */
export function nccOverlap(a: Plane, b: Plane, m: Affine, stride: number, skip?: Uint8Array): { ncc: number; overlap: number } {
  let total = 0;
  const sums = new PairSums();
  for (let y = 0; y < b.height; y += stride) {
    for (let x = 0; x < b.width; x += stride) {
      if (skip?.[y * b.width + x]) continue;
      total++;
      const va = sampleMapped(a, m, x, y);
      if (va !== null) sums.add(va, b.data[y * b.width + x]!);
    }
  }
  if (sums.n < 16) return { ncc: -1, overlap: sums.n / Math.max(1, total) };
  return { ncc: sums.ncc(), overlap: sums.n / total };
}

/** The reference's value where the affine map sends image point (x, y), or null outside the reference. */
function sampleMapped(a: Plane, m: Affine, x: number, y: number): number | null {
  const u = m[0] * x + m[1] * y + m[2];
  const v = m[3] * x + m[4] * y + m[5];
  if (u < 0 || v < 0 || u > a.width - 1 || v > a.height - 1) return null;
  return sampleBilinear(a, u, v);
}

/** Running sums of paired values (reference, image), for their normalised cross-correlation. */
class PairSums {
  n = 0;
  private sa = 0;
  private sb = 0;
  private saa = 0;
  private sbb = 0;
  private sab = 0;

  add(va: number, vb: number): void {
    this.n++;
    this.sa += va;
    this.sb += vb;
    this.saa += va * va;
    this.sbb += vb * vb;
    this.sab += va * vb;
  }

  ncc(): number {
    const n = this.n;
    const cov = this.sab / n - (this.sa / n) * (this.sb / n);
    const va = this.saa / n - (this.sa / n) ** 2;
    const vb = this.sbb / n - (this.sb / n) ** 2;
    return cov / Math.sqrt(Math.max(1e-12, va * vb));
  }
}

/** Smallest value v such that about `fraction` of the values are ≥ v (histogram, no sort). */
function upperQuantile(values: Float32Array, fraction: number): number {
  let max = 0;
  for (const v of values) if (v > max) max = v;
  if (max === 0) return 0;
  const bins = new Uint32Array(1024);
  for (const v of values) bins[Math.min(1023, Math.floor((v / max) * 1024))]!++;
  let acc = 0;
  for (let b = 1023; b >= 0; b--) {
    acc += bins[b]!;
    if (acc >= fraction * values.length) return (b / 1024) * max;
  }
  return 0;
}

/** Gradient-rich sample points of the image: where alignment information lives. */
function samplePoints(b: Plane, maxPoints: number): { xs: Float32Array; ys: Float32Array; vs: Float32Array } {
  const w = b.width;
  const h = b.height;
  const grad = new Float32Array(w * h);
  for (let y = 1; y < h - 1; y++) {
    for (let x = 1; x < w - 1; x++) {
      const i = y * w + x;
      grad[i] = Math.abs(b.data[i + 1]! - b.data[i - 1]!) + Math.abs(b.data[i + w]! - b.data[i - w]!);
    }
  }
  const threshold = upperQuantile(grad, (maxPoints * 2) / grad.length);
  const xs: number[] = [];
  const ys: number[] = [];
  const vs: number[] = [];
  for (let i = 0; i < grad.length; i++) {
    if (grad[i]! >= threshold && grad[i]! > 0) {
      xs.push(i % w);
      ys.push(Math.floor(i / w));
      vs.push(b.data[i]!);
    }
  }
  // Keep every k-th point so the sample stays spread over the whole image.
  const k = Math.max(1, Math.floor(xs.length / maxPoints));
  const pick = (arr: number[]) => Float32Array.from(arr.filter((_, i) => i % k === 0));
  return { xs: pick(xs), ys: pick(ys), vs: pick(vs) };
}

/**
 * Pattern search over a similarity perturbation (rotation, log-scale, translation) applied in
 * the image frame: m ∘ P. Steps halve when no move improves the NCC.
 */
function refine(a: Plane, b: Plane, start: Affine, step0: number, minStep: number): Affine {
  const pts = samplePoints(b, 12_000);
  const cx = (b.width - 1) / 2;
  const cy = (b.height - 1) / 2;
  const radius = Math.hypot(cx, cy);
  const score = (m: Affine): number => {
    const sums = new PairSums();
    for (let i = 0; i < pts.xs.length; i++) {
      const va = sampleMapped(a, m, pts.xs[i]!, pts.ys[i]!);
      if (va !== null) sums.add(va, pts.vs[i]!);
    }
    if (sums.n < pts.xs.length * minOverlap) return -2;
    return sums.ncc();
  };
  let m = start;
  let best = score(m);
  let step = step0;
  // Rotation and scale steps are expressed as the displacement they cause at the image corner.
  const moves = (s: number): Affine[] => [
    similarityAbout(cx, cy, 1, s / radius, 0, 0),
    similarityAbout(cx, cy, 1, -s / radius, 0, 0),
    similarityAbout(cx, cy, 1 + s / radius, 0, 0, 0),
    similarityAbout(cx, cy, 1 - s / radius, 0, 0, 0),
    [1, 0, s, 0, 1, 0],
    [1, 0, -s, 0, 1, 0],
    [1, 0, 0, 0, 1, s],
    [1, 0, 0, 0, 1, -s],
  ];
  for (let iter = 0; iter < 400 && step >= minStep; iter++) {
    let improved = false;
    for (const p of moves(step)) {
      const cand = compose(m, p);
      const s = score(cand);
      if (s > best + 1e-7) {
        best = s;
        m = cand;
        improved = true;
      }
    }
    if (!improved) step /= 2;
  }
  return m;
}
