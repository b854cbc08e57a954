/**
 * Statistics of a CFA mosaic that tell real sensor data from data that was demosaiced,
 * upscaled, smoothed or synthesised and then posed as a mosaic. Everything is measured per CFA
 * plane (the four 2x2 positions) on small patches; "flat" patches, where noise rather than
 * scene texture dominates, are the lower quartile of noise variance within each brightness band.
 */
import type { DecodedRaw } from '../types.js';

export type MosaicInput = Pick<DecodedRaw, 'cfa' | 'width' | 'height' | 'blackLevel' | 'whiteLevel' | 'channelBlack'>;

/** Side of a patch, in samples of one CFA plane (so 16x16 sensor pixels). */
const patchSide = 8;
const brightnessBands = 16;
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
  patches: number;
}

export interface MosaicStats {
  planes: PlaneLevels;
  /** Photon-transfer points: noise variance by signal level, flat patches only. */
  bands: NoiseBand[];
  /** Least-squares line variance = readVariance + gain * signal through the bands. */
  photonTransfer: { gain: number; readVariance: number; r2: number; signalSpan: number } | null;
  /** Correlation of horizontally adjacent same-plane residuals in flat patches (white noise: -0.4). */
  samePlaneResidualCorrelation: number;
  /** Correlation of residuals of horizontally adjacent different-colour pixels in flat patches (independent noise: ~0). */
  crossPlaneResidualCorrelation: number;
  /** max/min residual energy over even vs odd plane rows and columns in flat patches (no interpolation: ~1). */
  interpolationPeriodicity: number;
  /** Observed / expected fraction of exactly equal same-plane horizontal neighbours in flat patches. */
  duplicateExcess: number;
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

function measurePatches(m: MosaicInput, blacks: number[]): Patch[] {
  const planeW = m.width >> 1;
  const planeH = m.height >> 1;
  const clip = m.whiteLevel * 0.97;
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
        if (!clipped) patches.push({ plane, px, py, mean: sum / n - blacks[plane]!, variance: sumSq / n / residualGain });
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
    // Log-spaced bands: photon transfer is read across orders of magnitude of signal.
    const band = Math.floor((Math.log(p.mean) / Math.log(span)) * brightnessBands);
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
    bands.push({ signal: quantile(means, 0.5), variance: quantile(members.map((p) => p.variance), flatQuantile), patches: members.length });
  }
  return { flat, bands };
}

function fitLine(bands: NoiseBand[]): MosaicStats['photonTransfer'] {
  if (bands.length < 3) return null;
  const n = bands.length;
  const mx = bands.reduce((s, b) => s + b.signal, 0) / n;
  const my = bands.reduce((s, b) => s + b.variance, 0) / n;
  let sxx = 0;
  let sxy = 0;
  let syy = 0;
  for (const b of bands) {
    sxx += (b.signal - mx) ** 2;
    sxy += (b.signal - mx) * (b.variance - my);
    syy += (b.variance - my) ** 2;
  }
  const gain = sxx > 0 ? sxy / sxx : 0;
  const signals = bands.map((b) => b.signal);
  return {
    gain,
    readVariance: my - gain * mx,
    r2: sxx > 0 && syy > 0 ? (sxy * sxy) / (sxx * syy) : 0,
    signalSpan: Math.max(...signals) - Math.min(...signals),
  };
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
    // P(two samples with independent noise of variance v are equal) ~ 1/sqrt(4*pi*v) for v >~ 1.
    expectedEqual += patchSide * (patchSide - 1) * Math.min(1, 1 / Math.sqrt(4 * Math.PI * Math.max(p.variance, 0.25)));
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
  return {
    means: sums.map((s, i) => s / Math.max(1, counts[i]!)),
    clippedFraction: clipped / total,
    belowBlackFraction: below / total,
    topPile: { value: pileValue, share: topCount > 0 ? pileCount / topCount : 0 },
    quantizationStep: (high - low + 1) / Math.max(1, distinct),
  };
}

export function measureMosaic(m: MosaicInput, greenPlanes: number[]): MosaicStats {
  const blacks = m.channelBlack ?? [m.blackLevel, m.blackLevel, m.blackLevel, m.blackLevel];
  const levels = levelStats(m, blacks);
  const span = Math.max(2, m.whiteLevel - Math.min(...blacks));
  const { flat, bands } = selectFlat(measurePatches(m, blacks), span);
  const greenMean = greenPlanes.reduce((s, p) => s + levels.means[p]! - blacks[p]!, 0) / Math.max(1, greenPlanes.length);
  return {
    planes: {
      mean: levels.means,
      relativeToGreen: levels.means.map((v, i) => (greenMean > 0 ? (v - blacks[i]!) / greenMean : NaN)),
    },
    bands,
    photonTransfer: fitLine(bands),
    ...flatPatchStats(m, flat),
    clippedFraction: levels.clippedFraction,
    belowBlackFraction: levels.belowBlackFraction,
    topPile: levels.topPile,
    quantizationStep: levels.quantizationStep,
    flatPatches: flat.length,
  };
}
