/**
 * Global tone and colour models from the reference to the image. An honest export differs from
 * the reference only by operations of this kind (exposure, contrast, curves, white balance,
 * black-and-white); what they cannot explain is local editing.
 */

/** Monotone (non-decreasing) tone curve on `bins` equal input bins of 0..1. */
export interface ToneCurve {
  /** Output value at each bin centre. */
  values: Float64Array;
  /** Pixels per bin (bins with too few pixels are interpolated). */
  counts: Float64Array;
  /** Unconstrained per-bin means, before the monotone projection. */
  rawMeans: Float64Array;
}

/** Fit y ≈ f(x) with f non-decreasing: per-bin means, then pool-adjacent-violators. */
export function fitToneCurve(x: Float32Array, y: Float32Array, mask: Uint8Array | null, bins = 64): ToneCurve {
  const sum = new Float64Array(bins);
  const counts = new Float64Array(bins);
  for (let i = 0; i < x.length; i++) {
    if (mask && !mask[i]) continue;
    const b = Math.min(bins - 1, Math.max(0, Math.floor(x[i]! * bins)));
    sum[b]! += y[i]!;
    counts[b]!++;
  }
  const rawMeans = new Float64Array(bins).fill(NaN);
  for (let b = 0; b < bins; b++) if (counts[b]! > 0) rawMeans[b] = sum[b]! / counts[b]!;
  // Pool adjacent violators over the populated bins, weighted by count.
  const blocks: { value: number; weight: number; start: number; end: number }[] = [];
  for (let b = 0; b < bins; b++) {
    if (!(counts[b]! > 0)) continue;
    blocks.push({ value: rawMeans[b]!, weight: counts[b]!, start: b, end: b });
    while (blocks.length > 1 && blocks[blocks.length - 2]!.value > blocks[blocks.length - 1]!.value) {
      const top = blocks.pop()!;
      const prev = blocks[blocks.length - 1]!;
      prev.value = (prev.value * prev.weight + top.value * top.weight) / (prev.weight + top.weight);
      prev.weight += top.weight;
      prev.end = top.end;
    }
  }
  const values = new Float64Array(bins).fill(NaN);
  for (const bl of blocks) for (let b = bl.start; b <= bl.end; b++) values[b] = bl.value;
  fillGaps(values);
  return { values, counts, rawMeans };
}

/** Linear interpolation over NaN gaps; constant extension at the ends. */
function fillGaps(v: Float64Array): void {
  let last = -1;
  for (let i = 0; i < v.length; i++) {
    if (Number.isNaN(v[i]!)) continue;
    if (last === -1) for (let j = 0; j < i; j++) v[j] = v[i]!;
    else for (let j = last + 1; j < i; j++) v[j] = v[last]! + ((v[i]! - v[last]!) * (j - last)) / (i - last);
    last = i;
  }
  if (last === -1) v.fill(0);
  else for (let j = last + 1; j < v.length; j++) v[j] = v[last]!;
}

/** Evaluate a curve at x (linear between bin centres). */
export function applyToneCurve(curve: ToneCurve, x: Float32Array): Float32Array {
  const bins = curve.values.length;
  const out = new Float32Array(x.length);
  for (let i = 0; i < x.length; i++) {
    const f = Math.min(bins - 1, Math.max(0, x[i]! * bins - 0.5));
    const b = Math.floor(f);
    const t = f - b;
    const b1 = Math.min(bins - 1, b + 1);
    out[i] = curve.values[b]! * (1 - t) + curve.values[b1]! * t;
  }
  return out;
}

/**
 * Largest drop of the unconstrained curve, over well-populated bins: how far the data is from
 * any monotone tone curve (0 for every global curve an editor applies; large for an inversion
 * or solarisation).
 */
export function largestToneReversal(curve: ToneCurve, minCount: number): number {
  let peak = -Infinity;
  let worst = 0;
  for (let b = 0; b < curve.rawMeans.length; b++) {
    if (!(curve.counts[b]! >= minCount)) continue;
    const v = curve.rawMeans[b]!;
    peak = Math.max(peak, v);
    worst = Math.max(worst, peak - v);
  }
  return worst;
}

/** 3x4 affine colour transform (row-major, last column = offset), all values 0..1. */
export type ColourTransform = number[];

/** Least-squares fit of image ≈ M·[r g b 1] of the reference over masked pixels (subsampled). */
export function fitColourTransform(ref: Uint8Array, img: Uint8Array, mask: Uint8Array, stride = 3): ColourTransform {
  const ata = new Float64Array(16);
  const atb = [new Float64Array(4), new Float64Array(4), new Float64Array(4)];
  for (let p = 0; p < mask.length; p += stride) {
    if (!mask[p]) continue;
    const a = [ref[p * 3]! / 255, ref[p * 3 + 1]! / 255, ref[p * 3 + 2]! / 255, 1];
    for (let i = 0; i < 4; i++) {
      for (let j = 0; j < 4; j++) ata[i * 4 + j]! += a[i]! * a[j]!;
      for (let c = 0; c < 3; c++) atb[c]![i]! += a[i]! * (img[p * 3 + c]! / 255);
    }
  }
  // Ridge term keeps the fit defined on flat or grey references.
  for (let i = 0; i < 3; i++) ata[i * 4 + i]! += 1e-3 * (ata[15]! || 1);
  const out: number[] = [];
  for (let c = 0; c < 3; c++) out.push(...solve4(ata, atb[c]!));
  return out;
}

function solve4(a: Float64Array, b: Float64Array): number[] {
  const m = Array.from({ length: 4 }, (_, i) => [...a.subarray(i * 4, i * 4 + 4), b[i]!]);
  for (let col = 0; col < 4; col++) {
    let piv = col;
    for (let r = col + 1; r < 4; r++) if (Math.abs(m[r]![col]!) > Math.abs(m[piv]![col]!)) piv = r;
    [m[col], m[piv]] = [m[piv]!, m[col]!];
    const d = m[col]![col]! || 1e-12;
    for (let r = 0; r < 4; r++) {
      if (r === col) continue;
      const f = m[r]![col]! / d;
      for (let k = col; k < 5; k++) m[r]![k]! -= f * m[col]![k]!;
    }
  }
  return m.map((row, i) => row[4]! / (row[i]! || 1e-12));
}

/** Apply a colour transform to 8-bit RGB, returning per-channel float planes (0..1). */
export function applyColourTransform(rgb: Uint8Array, t: ColourTransform): [Float32Array, Float32Array, Float32Array] {
  const n = rgb.length / 3;
  const out: [Float32Array, Float32Array, Float32Array] = [new Float32Array(n), new Float32Array(n), new Float32Array(n)];
  for (let p = 0; p < n; p++) {
    const r = rgb[p * 3]! / 255;
    const g = rgb[p * 3 + 1]! / 255;
    const b = rgb[p * 3 + 2]! / 255;
    for (let c = 0; c < 3; c++) out[c]![p] = t[c * 4]! * r + t[c * 4 + 1]! * g + t[c * 4 + 2]! * b + t[c * 4 + 3]!;
  }
  return out;
}

export function lumaArray(rgb: Uint8Array): Float32Array {
  const n = rgb.length / 3;
  const out = new Float32Array(n);
  for (let p = 0; p < n; p++) out[p] = (0.2126 * rgb[p * 3]! + 0.7152 * rgb[p * 3 + 1]! + 0.0722 * rgb[p * 3 + 2]!) / 255;
  return out;
}
