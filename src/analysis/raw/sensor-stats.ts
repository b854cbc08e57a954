/**
 * Statistics of a CFA mosaic that tell real sensor data from data that was demosaiced,
 * upscaled, smoothed or synthesised and then posed as a mosaic. Everything is measured per CFA
 * plane (the four 2x2 positions) on small patches; "flat" patches, where noise rather than
 * scene texture dominates, are the lower quartile of noise variance within each brightness band.
 */
import type { DecodedRaw } from '../types.js';
import { type DuplicatedRegions, findDuplicatedRegions } from './duplicated-regions.js';

export type MosaicInput = Pick<DecodedRaw, 'cfa' | 'width' | 'height' | 'blackLevel' | 'whiteLevel' | 'channelBlack'>;

/** Side of a patch, in samples of one CFA plane (so 16x16 sensor pixels). */
const patchSide = 8;
const brightnessBands = 16;
/** Octaves below the span the bands cover (12-bit sensors' range); darker patches join the first band. */
const bandOctaves = 12;
/** Patches per band below which a band is ignored (too few to pick flat ones from). */
const minPatchesPerBand = 24;
/** Fraction of each band kept as "flat": the lowest-variance quarter. */
const flatQuantile = 0.25;
/** Var(r) / Var(noise) for the residual r = x - mean(4 same-plane neighbours) of white noise. */
const residualGain = 1.25;

export interface PlaneLevels {
  mean: number[];
  /** Mean of each plane relative to the mean of the green planes. */
  relativeToGreen: number[];
}

export interface NoiseBand {
  /** Median patch mean above black, in DN. */
  signal: number;
  /** Lower-quartile noise variance of that band, in DN^2. */
  variance: number;
  /**
   * Variance the encoding's own rounding adds, q^2/12 for the typical code spacing q of the
   * band's flat patches (1/12 for dense data; large for coarse companding curves, where it grows
   * with signal just as shot noise does). The photon-transfer fit reads variance - quantisation.
   */
  quantisation: number;
  patches: number;
}

/** The band's variance that is not the encoding's rounding. */
export function sensorVariance(b: NoiseBand): number {
  return b.variance - b.quantisation;
}

export interface PhotonTransferFit {
  /**
   * 'linear': variance = readVariance + gain * signal. 'quadratic': plus prnu * signal^2, the
   * pixel response non-uniformity that dominates bright bands of low-ISO sensors (so the gain
   * is not inflated by it). gain 0 = no shot noise term fits.
   */
  model: 'linear' | 'quadratic';
  gain: number;
  readVariance: number;
  /** Standard error of readVariance (weighted least squares, from the bands' scatter about the fit). */
  readVarianceError: number;
  prnu: number;
  r2: number;
  signalSpan: number;
  /** Bands the fit used (from the darkest), of all bands. */
  bandsUsed: number;
  /** Power law through the bands used: noise grows with an exponent up to ~1, scene texture ~2. */
  logLog: { slope: number; r2: number } | null;
  /**
   * Set when the brightest bands were left out: their noise falls although the signal rises
   * (no linear sensor does that; lossy compression or clipping of the brightest areas does).
   */
  excludedAbove?: number;
}

/** How the values are encoded, as far as the data itself shows it. */
export interface EncodingFacts {
  /** Largest sample. */
  dataMaximum: number;
  /** Smallest 2^n - 1 holding every sample (the bit depth the data actually uses). */
  dataCeiling: number;
  /**
   * The declared white level, unless it exceeds dataCeiling by 4x or more (two or more bits the
   * data never uses: 12-bit data declared with WhiteLevel 65535): then dataCeiling.
   */
  effectiveWhite: number;
  /** Where the sensor clips: a pile-up of samples at one top value, else effectiveWhite. */
  saturation: number;
  /**
   * Set when the declared white level is 4x to 16x the data's ceiling and no pile-up shows where
   * the data clip: two or three unused bits are as likely a dark crop of a 14-bit frame as
   * 12-bit data in a 14-bit container, so the electron bound is judged at both white levels.
   * (Four or more unused bits, 12-bit data declared 65535, is the writers' convention for
   * 12-bit data: effectiveWhite alone is used.)
   */
  ambiguousWhite?: { declared: number; data: number };
  /** Typical spacing of the values used near the black level (1 for dense data). */
  stepAtBlack: number;
}

export interface MosaicStats {
  planes: PlaneLevels;
  /** Photon-transfer points: noise variance by signal level, flat patches only. */
  bands: NoiseBand[];
  /** Weighted least-squares fit of variance against signal through the bands (weightedFit). */
  photonTransfer: PhotonTransferFit | null;
  /**
   * Straight line through log(variance) against log(signal), every band weighted alike: noise
   * has a slope up to ~1 (read noise to shot noise), scene texture in "flat" patches a slope ~2.
   */
  logLogFit: { slope: number; r2: number } | null;
  encoding: EncodingFacts;
  /** Correlation of horizontally adjacent same-plane residuals in flat patches (white noise: -0.4). */
  samePlaneResidualCorrelation: number;
  /** Correlation of residuals of horizontally adjacent different-colour pixels in flat patches (independent noise: ~0). */
  crossPlaneResidualCorrelation: number;
  /** max/min residual energy over even vs odd plane rows and columns in flat patches (no interpolation: ~1). */
  interpolationPeriodicity: number;
  /** Observed / expected fraction of exactly equal same-plane horizontal neighbours in flat patches. */
  duplicateExcess: number;
  /** Textured blocks of one green plane that recur exactly elsewhere in the frame (copy-move). */
  duplicatedRegions: DuplicatedRegions;
  /** Fractions of samples at or above the white level, and below the black level. */
  clippedFraction: number;
  belowBlackFraction: number;
  /** The most common value among the top 0.5% of samples, and its share of them (a clipping pile-up). */
  topPile: { value: number; share: number };
  /** Occupied value range / distinct values used (1 for dense sensor data; ~64 for 8-bit data stretched to 14 bits). */
  quantizationStep: number;
  flatPatches: number;
}

interface Patch {
  plane: number;
  px: number;
  py: number;
  mean: number;
  variance: number;
  /** Spacing of the values used around this patch's level (quantisation step). */
  step: number;
}

function quantile(sorted: number[], q: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.floor(q * (sorted.length - 1))))]!;
}

/** Mosaic index of sample (x, y) of a plane. Same-plane neighbours are +-2 and +-2*width away. */
function indexOf(m: MosaicInput, plane: number, x: number, y: number): number {
  return (2 * y + (plane >> 1)) * m.width + 2 * x + (plane & 1);
}

/** x - mean of its 4 same-plane neighbours: removes the scene's smooth part, keeps the noise. */
function residualAt(c: Uint16Array, i: number, row: number): number {
  return c[i]! - (c[i - 2]! + c[i + 2]! + c[i - row]! + c[i + row]!) / 4;
}

/**
 * Every other patch in each direction: a quarter of the image gives thousands of patches per
 * plane, plenty for the statistics, at a quarter of the cost.
 */
const patchStride = 2 * patchSide;

function measurePatches(m: MosaicInput, blacks: number[], saturation: number, stepAt: (value: number) => number): Patch[] {
  const planeW = m.width >> 1;
  const planeH = m.height >> 1;
  // Samples this close to saturation are (partly) clipped: their noise is cut off. Patches in
  // the top tenth of the range are left out whatever their own spread (judging them by their
  // own variance would keep only the quiet ones).
  const range = Math.max(1, saturation - Math.min(...blacks));
  const clip = saturation - 0.03 * range;
  const brightest = saturation - 0.1 * range;
  const c = m.cfa;
  const row = 2 * m.width;
  const n = patchSide * patchSide;
  const patches: Patch[] = [];
  for (let plane = 0; plane < 4; plane++) {
    for (let py = 1; py + patchSide + 1 <= planeH; py += patchStride) {
      for (let px = 1; px + patchSide + 1 <= planeW; px += patchStride) {
        let sum = 0;
        let sumSq = 0;
        let clipped = false;
        for (let y = py; y < py + patchSide; y++) {
          let i = indexOf(m, plane, px, y);
          for (let x = 0; x < patchSide; x++, i += 2) {
            const v = c[i]!;
            if (v >= clip) clipped = true;
            const r = residualAt(c, i, row);
            sumSq += r * r;
            sum += v;
          }
        }
        const level = sum / n;
        const variance = sumSq / n / residualGain;
        if (clipped || level >= brightest) continue;
        patches.push({ plane, px, py, mean: level - blacks[plane]!, variance, step: stepAt(level) });
      }
    }
  }
  return patches;
}

/** Keeps the lowest-variance quarter of each brightness band; returns them and the band summary. */
function selectFlat(patches: Patch[], span: number): { flat: Patch[]; bands: NoiseBand[] } {
  const byBand: Patch[][] = Array.from({ length: brightnessBands }, () => []);
  for (const p of patches) {
    if (p.mean <= 0) continue;
    // Log-spaced bands: photon transfer is read across orders of magnitude of signal. They are
    // fixed fractions of the span (not of the code range), so the same data stored at another
    // bit depth (x2^k) falls into the same bands and fits the same line.
    const band = Math.floor(((Math.log2(p.mean / span) + bandOctaves) / bandOctaves) * brightnessBands);
    byBand[Math.min(brightnessBands - 1, Math.max(0, band))]!.push(p);
  }
  const flat: Patch[] = [];
  const bands: NoiseBand[] = [];
  for (const members of byBand) {
    if (members.length < minPatchesPerBand) continue;
    members.sort((a, b) => a.variance - b.variance);
    const kept = members.slice(0, Math.max(1, Math.floor(members.length * flatQuantile)));
    flat.push(...kept);
    const means = kept.map((p) => p.mean).sort((a, b) => a - b);
    const step = quantile(kept.map((p) => p.step).sort((a, b) => a - b), 0.5);
    bands.push({ signal: quantile(means, 0.5), variance: quantile(members.map((p) => p.variance), flatQuantile), quantisation: (step * step) / 12, patches: members.length });
  }
  return { flat, bands };
}

interface BandFit {
  /** [constant, linear, quadratic] (0 for a term left out), in DN^2, DN, 1. */
  coef: number[];
  /** Weighted coefficient of determination. */
  r2: number;
  /** Standard error of the constant (read variance), from the scatter of the bands about the fit. */
  constantError: number;
}

/**
 * Weighted least squares of variance on 1 and the chosen terms of (s, s^2); signals scaled to
 * 0..1 and weights to a mean of 1 for conditioning (neither changes the solution).
 */
function leastSquares(bands: NoiseBand[], [linear, quadratic]: [boolean, boolean], rawWeights: number[]): BandFit | null {
  const k = 1 + (linear ? 1 : 0) + (quadratic ? 1 : 0);
  if (bands.length < k + 1) return null;
  const meanWeight = rawWeights.reduce((s, w) => s + w, 0) / rawWeights.length;
  if (!(meanWeight > 0)) return null;
  const weights = rawWeights.map((w) => w / meanWeight);
  const scale = Math.max(...bands.map((b) => b.signal)) || 1;
  const features = (x: number): number[] => [1, ...(linear ? [x] : []), ...(quadratic ? [x * x] : [])];
  const ata = Array.from({ length: k }, () => new Array<number>(k).fill(0));
  const atb = new Array<number>(k).fill(0);
  bands.forEach((b, n) => {
    const row = features(b.signal / scale);
    const w = weights[n]!;
    for (let i = 0; i < k; i++) {
      atb[i]! += w * row[i]! * sensorVariance(b);
      for (let j = 0; j < k; j++) ata[i]![j]! += w * row[i]! * row[j]!;
    }
  });
  const solved = solve(ata, atb);
  // (A'WA)^-1 [0][0]: the constant's variance per unit of residual variance.
  const inverse00 = solve(ata, atb.map((_, i) => (i === 0 ? 1 : 0)))?.[0];
  if (!solved || inverse00 === undefined) return null;
  const coef = [solved[0]!, linear ? solved[1]! : 0, quadratic ? solved[k - 1]! : 0];
  const mean = bands.reduce((s, b, n) => s + weights[n]! * sensorVariance(b), 0) / bands.length;
  let ssRes = 0;
  let ssTot = 0;
  bands.forEach((b, n) => {
    const x = b.signal / scale;
    ssRes += weights[n]! * (sensorVariance(b) - (coef[0]! + coef[1]! * x + coef[2]! * x * x)) ** 2;
    ssTot += weights[n]! * (sensorVariance(b) - mean) ** 2;
  });
  return {
    coef: [coef[0]!, coef[1]! / scale, coef[2]! / (scale * scale)],
    r2: ssTot > 0 ? Math.max(0, 1 - ssRes / ssTot) : 0,
    constantError: Math.sqrt(Math.max(0, (ssRes / (bands.length - k)) * inverse00)),
  };
}

/** Reweighting passes: the weights follow the fitted variances (iteratively reweighted least squares). */
const reweightingPasses = 3;

/**
 * The photon-transfer fit, each band weighted by the precision of its variance. A band's variance
 * is a sample variance (a quantile of its n patches'), and a sample variance errs in proportion
 * to the variance it measures: its own variance is ~ variance^2 / n. So each band is weighted by
 * n / variance^2. The variance in a weight is the whole variance measured, the encoding's
 * rounding included (subtracting the rounding's expected share does not remove its scatter: in
 * coarse companding curves the rounding-dominated bands count for less). Unweighted, the bright
 * bands (variances hundreds of times larger, and as uncertain in relative terms) decide the line
 * and the intercept lands wherever their curvature throws it; weighted, the dark bands, which
 * measure the read noise, set the intercept. The variance in a weight is the model's (iterated
 * from the observed one), so a band that happens to come out low is not favoured; it never drops
 * below half the observed one. Scaling all data by a constant scales every weight alike: the fit
 * is the same at any bit depth.
 */
function weightedFit(bands: NoiseBand[], terms: [boolean, boolean]): BandFit | null {
  const floor = (b: NoiseBand): number => Math.max(0.5 * sensorVariance(b), Number.MIN_VALUE);
  const weight = (b: NoiseBand, sensor: number): number => b.patches / (Math.max(sensor, floor(b)) + b.quantisation) ** 2;
  let weights = bands.map((b) => weight(b, sensorVariance(b)));
  let fit = leastSquares(bands, terms, weights);
  for (let pass = 0; pass < reweightingPasses && fit; pass++) {
    const [c0, c1, c2] = fit.coef as [number, number, number];
    weights = bands.map((b) => weight(b, c0 + c1 * b.signal + c2 * b.signal * b.signal));
    fit = leastSquares(bands, terms, weights);
  }
  return fit;
}

/** Gaussian elimination with partial pivoting; null when singular. */
function solve(a: number[][], b: number[]): number[] | null {
  const n = b.length;
  const m = a.map((row, i) => [...row, b[i]!]);
  for (let c = 0; c < n; c++) {
    let p = c;
    for (let r = c + 1; r < n; r++) if (Math.abs(m[r]![c]!) > Math.abs(m[p]![c]!)) p = r;
    if (Math.abs(m[p]![c]!) < 1e-12) return null;
    [m[c], m[p]] = [m[p]!, m[c]!];
    for (let r = 0; r < n; r++) {
      if (r === c) continue;
      const f = m[r]![c]! / m[c]![c]!;
      for (let j = c; j <= n; j++) m[r]![j]! -= f * m[c]![j]!;
    }
  }
  return m.map((row, i) => row[n]! / row[i]!);
}

/** Fewest bands, and decades of signal, a fit that leaves out falling bright bands must keep. */
const minPrefixBands = 5;
const minPrefixDecades = 1.2;

/**
 * The photon-transfer fit: variance = read + gain * signal + prnu * signal^2 with gain >= 0 and
 * prnu >= 0 (non-negative weighted least squares over the subsets of terms; the quadratic term only
 * with 5 or more bands). Noise variance of a linear sensor never falls as the signal rises;
 * when the brightest bands do fall (lossy compression quantises their noise away, or they sit
 * in near-clipped highlights) they are left out, provided the rising part alone still spans at
 * least 5 bands and 1.2 decades of signal from the darkest band. Otherwise every band is used.
 */
function fitPhotonTransfer(all: NoiseBand[]): PhotonTransferFit | null {
  if (all.length < 3) return null;
  let peak = 0;
  all.forEach((b, i) => {
    if (sensorVariance(b) > sensorVariance(all[peak]!)) peak = i;
  });
  let bands = all;
  let excludedAbove: number | undefined;
  if (peak < all.length - 1 && peak + 1 >= minPrefixBands && Math.log10(all[peak]!.signal / Math.max(all[0]!.signal, 1e-9)) >= minPrefixDecades) {
    bands = all.slice(0, peak + 1);
    excludedAbove = all[peak]!.signal;
  }
  const candidates: { terms: [boolean, boolean]; fit: BandFit | null }[] = [
    { terms: [true, true], fit: bands.length >= 5 ? weightedFit(bands, [true, true]) : null },
    { terms: [true, false], fit: weightedFit(bands, [true, false]) },
    { terms: [false, true], fit: bands.length >= 5 ? weightedFit(bands, [false, true]) : null },
    { terms: [false, false], fit: weightedFit(bands, [false, false]) },
  ];
  const feasible = candidates
    .filter((c): c is { terms: [boolean, boolean]; fit: BandFit } => c.fit !== null && c.fit.coef[1]! >= 0 && c.fit.coef[2]! >= 0)
    .sort((a, b) => b.fit.r2 - a.fit.r2);
  const chosen = feasible[0];
  if (!chosen) return null;
  const signals = bands.map((b) => b.signal);
  return {
    model: chosen.terms[1] ? 'quadratic' : 'linear',
    readVariance: chosen.fit.coef[0]!,
    readVarianceError: chosen.fit.constantError,
    gain: chosen.fit.coef[1]!,
    prnu: chosen.fit.coef[2]!,
    r2: chosen.fit.r2,
    signalSpan: Math.max(...signals) - Math.min(...signals),
    bandsUsed: bands.length,
    logLog: fitLogLog(bands),
    ...(excludedAbove === undefined ? {} : { excludedAbove }),
  };
}

function fitLogLog(bands: NoiseBand[]): MosaicStats['logLogFit'] {
  const points = bands.filter((b) => b.signal > 0 && sensorVariance(b) > 0).map((b) => [Math.log(b.signal), Math.log(sensorVariance(b))] as const);
  if (points.length < 3) return null;
  const mx = points.reduce((s, p) => s + p[0], 0) / points.length;
  const my = points.reduce((s, p) => s + p[1], 0) / points.length;
  let sxx = 0;
  let sxy = 0;
  let syy = 0;
  for (const [x, y] of points) {
    sxx += (x - mx) ** 2;
    sxy += (x - mx) * (y - my);
    syy += (y - my) ** 2;
  }
  return sxx > 0 && syy > 0 ? { slope: sxy / sxx, r2: (sxy * sxy) / (sxx * syy) } : null;
}

function correlation(sxy: number, sxx: number, syy: number): number {
  return sxx > 0 && syy > 0 ? sxy / Math.sqrt(sxx * syy) : 0;
}

/** Residual-based statistics pooled over the flat patches. */
function flatPatchStats(m: MosaicInput, flat: Patch[]) {
  const c = m.cfa;
  const row = 2 * m.width;
  let sameXY = 0;
  let sameXX = 0;
  let sameYY = 0;
  let crossXY = 0;
  let crossXX = 0;
  let crossYY = 0;
  // Residual energy and sample counts at even/odd plane columns and rows.
  const energy = [0, 0, 0, 0];
  const counts = [0, 0, 0, 0];
  let equal = 0;
  let expectedEqual = 0;
  for (const p of flat) {
    // The mosaic neighbour to the right of a left-column pixel (planes 0, 2) is in the same quad;
    // for right-column pixels (1, 3) it is the first pixel of the next quad. Either way: i + 1.
    for (let y = p.py; y < p.py + patchSide; y++) {
      let i = indexOf(m, p.plane, p.px, y);
      for (let x = p.px; x < p.px + patchSide - 1; x++, i += 2) {
        const r = residualAt(c, i, row);
        const right = residualAt(c, i + 2, row);
        sameXY += r * right;
        sameXX += r * r;
        sameYY += right * right;
        const other = residualAt(c, i + 1, row);
        crossXY += r * other;
        crossXX += r * r;
        crossYY += other * other;
        const e = r * r;
        energy[x & 1]! += e;
        counts[x & 1]!++;
        energy[2 + (y & 1)]! += e;
        counts[2 + (y & 1)]!++;
        if (c[i] === c[i + 2]) equal++;
      }
    }
    // P(two samples with independent noise of variance v, quantised in steps q, are equal)
    // ~ q/sqrt(4*pi*v) for v >~ q^2: coarse codes (companding curves, 8-bit data scaled up) make
    // equal neighbours proportionally more common without any duplication.
    const q = p.step;
    expectedEqual += patchSide * (patchSide - 1) * Math.min(1, q / Math.sqrt(4 * Math.PI * Math.max(p.variance, 0.25 * q * q)));
  }
  const mean = energy.map((e, k) => e / Math.max(1, counts[k]!));
  const ratio = (a: number, b: number): number => (a > 0 && b > 0 ? Math.max(a / b, b / a) : a === b ? 1 : Infinity);
  return {
    samePlaneResidualCorrelation: correlation(sameXY, sameXX, sameYY),
    crossPlaneResidualCorrelation: correlation(crossXY, crossXX, crossYY),
    interpolationPeriodicity: Math.max(ratio(mean[0]!, mean[1]!), ratio(mean[2]!, mean[3]!)),
    duplicateExcess: expectedEqual > 0 ? equal / expectedEqual : 1,
  };
}

function levelStats(m: MosaicInput, blacks: number[]) {
  const sums = [0, 0, 0, 0];
  const counts = [0, 0, 0, 0];
  const histogram = new Uint32Array(65536);
  let below = 0;
  for (let y = 0; y < m.height; y++) {
    const start = y * m.width;
    const rowPlane = (y & 1) << 1;
    const black0 = blacks[rowPlane]!;
    const black1 = blacks[rowPlane + 1]!;
    let sum0 = 0;
    let sum1 = 0;
    for (let x = 0; x < m.width; x += 2) {
      const v0 = m.cfa[start + x]!;
      sum0 += v0;
      histogram[v0]!++;
      if (v0 < black0) below++;
      if (x + 1 < m.width) {
        const v1 = m.cfa[start + x + 1]!;
        sum1 += v1;
        histogram[v1]!++;
        if (v1 < black1) below++;
      }
    }
    sums[rowPlane]! += sum0;
    sums[rowPlane + 1]! += sum1;
    counts[rowPlane]! += Math.ceil(m.width / 2);
    counts[rowPlane + 1]! += Math.floor(m.width / 2);
  }
  const total = m.width * m.height;
  let clipped = 0;
  for (let v = Math.min(65535, m.whiteLevel); v < 65536; v++) clipped += histogram[v]!;
  // Clipping pile-up: the commonest value among the brightest 0.5% of samples.
  let seen = 0;
  let pileValue = 0;
  let pileCount = 0;
  let topCount = 0;
  for (let v = 65535; v >= 0 && seen < total * 0.005; v--) {
    const count = histogram[v]!;
    seen += count;
    topCount += count;
    if (count > pileCount) {
      pileCount = count;
      pileValue = v;
    }
  }
  // Effective quantisation step: occupied range / distinct values used, between the 1st and 99th percentiles.
  let low = 0;
  let high = 65535;
  for (let v = 0, acc = 0; v < 65536; v++) {
    acc += histogram[v]!;
    if (acc >= total * 0.01) {
      low = v;
      break;
    }
  }
  for (let v = 65535, acc = 0; v >= 0; v--) {
    acc += histogram[v]!;
    if (acc >= total * 0.01) {
      high = v;
      break;
    }
  }
  let distinct = 0;
  for (let v = low; v <= high; v++) if (histogram[v]! > 0) distinct++;
  let dataMaximum = 0;
  for (let v = 65535; v >= 0; v--) {
    if (histogram[v]! > 0) {
      dataMaximum = v;
      break;
    }
  }
  return {
    histogram,
    dataMaximum,
    means: sums.map((s, i) => s / Math.max(1, counts[i]!)),
    clippedFraction: clipped / total,
    belowBlackFraction: below / total,
    topPile: { value: pileValue, share: topCount > 0 ? pileCount / topCount : 0 },
    quantizationStep: (high - low + 1) / Math.max(1, distinct),
  };
}

/** Typical spacing of the values in use around a level: (value range of 16 neighbouring codes) / 16. */
function quantisationSteps(histogram: Uint32Array): (value: number) => number {
  const used: number[] = [];
  for (let v = 0; v < histogram.length; v++) if (histogram[v]! > 0) used.push(v);
  const window = 8;
  return (value: number): number => {
    if (used.length < 2 * window + 1) return 1;
    let lo = 0;
    let hi = used.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (used[mid]! < value) lo = mid + 1;
      else hi = mid;
    }
    const a = Math.max(0, Math.min(lo - window, used.length - 1 - 2 * window));
    return Math.max(1, (used[a + 2 * window]! - used[a]!) / (2 * window));
  };
}

function encodingFacts(m: MosaicInput, levels: ReturnType<typeof levelStats>, blacks: number[], stepAt: (v: number) => number): EncodingFacts {
  const dataCeiling = 2 ** Math.max(1, Math.ceil(Math.log2(levels.dataMaximum + 1))) - 1;
  const effectiveWhite = m.whiteLevel >= 4 * (dataCeiling + 1) - 1 ? dataCeiling : m.whiteLevel;
  const black = Math.min(...blacks);
  // A clipping sensor piles its brightest samples up at one value.
  const piled = levels.topPile.share >= 0.2 && levels.topPile.value > black + 0.5 * (effectiveWhite - black);
  // Only a pile at the top of the data shows where they clip (a coarse encoding also piles its
  // samples on a few codes below the top, as the 8-bit square-root curve does).
  const clipsInData = piled && levels.topPile.value + stepAt(levels.topPile.value) >= levels.dataMaximum;
  const ambiguous = !clipsInData && effectiveWhite === dataCeiling && m.whiteLevel < 16 * (dataCeiling + 1) - 1;
  return {
    dataMaximum: levels.dataMaximum,
    dataCeiling,
    effectiveWhite,
    saturation: piled ? Math.min(effectiveWhite, levels.topPile.value) : effectiveWhite,
    stepAtBlack: stepAt(black),
    ...(ambiguous && effectiveWhite !== m.whiteLevel ? { ambiguousWhite: { declared: m.whiteLevel, data: dataCeiling } } : {}),
  };
}

export function measureMosaic(m: MosaicInput, greenPlanes: number[]): MosaicStats {
  const blacks = m.channelBlack ?? [m.blackLevel, m.blackLevel, m.blackLevel, m.blackLevel];
  const levels = levelStats(m, blacks);
  const stepAt = quantisationSteps(levels.histogram);
  const encoding = encodingFacts(m, levels, blacks, stepAt);
  const span = Math.max(2, encoding.effectiveWhite - Math.min(...blacks));
  const { flat, bands } = selectFlat(measurePatches(m, blacks, encoding.saturation, stepAt), span);
  const greenMean = greenPlanes.reduce((s, p) => s + levels.means[p]! - blacks[p]!, 0) / Math.max(1, greenPlanes.length);
  return {
    planes: {
      mean: levels.means,
      relativeToGreen: levels.means.map((v, i) => (greenMean > 0 ? (v - blacks[i]!) / greenMean : NaN)),
    },
    bands,
    duplicatedRegions: findDuplicatedRegions(m, greenPlanes[0] ?? 1, encoding.saturation),
    photonTransfer: fitPhotonTransfer(bands),
    logLogFit: fitLogLog(bands),
    encoding,
    ...flatPatchStats(m, flat),
    clippedFraction: levels.clippedFraction,
    belowBlackFraction: levels.belowBlackFraction,
    topPile: levels.topPile,
    quantizationStep: levels.quantizationStep,
    flatPatches: flat.length,
  };
}
