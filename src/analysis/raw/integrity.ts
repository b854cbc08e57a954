/**
 * raw_integrity: does the file hold real sensor data? Each check measures one property that
 * real Bayer data has and data posed as CFA usually lacks, and returns pass / fail / undecided
 * with its numbers and thresholds. Continue and collect: every check runs, one verdict is then
 * derived from all of them (any fail -> false; all core checks pass -> true; otherwise null).
 * Thresholds and their calibration: docs/analysis-raw.md.
 */
import type { AnalysisResult, DecodedRaw } from '../types.js';
import type { SensorData } from './decode.js';
import { measureMosaic, type MosaicStats } from './sensor-stats.js';

export const integrityThresholds = {
  /**
   * Same-plane residual correlation: white noise gives -0.4. At most -0.1 passes (genuine data
   * reached -0.14: GoPro's wavelet codec correlates noise a little); above -0.04 fails (noise
   * shared between neighbours: smoothed or interpolated planes); between is undecided.
   */
  maxSamePlaneResidualCorrelation: -0.1,
  failSamePlaneResidualCorrelation: -0.04,
  /** Residual correlation of adjacent different-colour pixels above this = colours share sources (demosaiced). */
  maxCrossPlaneResidualCorrelation: 0.3,
  /** Even/odd residual energy ratio above this = interpolation periodicity (upscaled planes). */
  maxInterpolationPeriodicity: 1.5,
  /** Exact-duplicate neighbours above this multiple of what the noise predicts = duplicated pixels. */
  maxDuplicateExcess: 8,
  /**
   * Textured 16x16-pixel blocks found again, sample for sample, at one displacement: this many
   * or more = a region of the mosaic was copied (real sensor noise never repeats; genuine
   * files showed 0).
   */
  maxRepeatedBlocks: 3,
  /** Noise-vs-signal line must explain at least this much of the band variance to be read. */
  minPhotonTransferR2: 0.8,
  /**
   * The fitted read-noise variance (intercept) may dip below 0 by estimator noise: by up to this
   * fraction of the darkest band's variance (at least 1 DN^2), or this many standard errors of
   * the fitted intercept, whichever is larger. Beyond, the line meets zero noise above the
   * declared black level: the black level or the linearisation is not what the file says, and
   * the fit is undecided (never a fail: it is an encoding question, not fabrication).
   */
  readVarianceTolerance: 0.5,
  readVarianceStandardErrors: 2,
  /** Fewest brightness bands for a photon-transfer fit. */
  minBands: 4,
  /**
   * Electrons at saturation implied by the fitted gain, scaled to ISO 100: published full-well
   * capacities of camera sensors lie between ~3,000 e- (phone pixels) and ~100,000 e-
   * (large-pixel full frame); the bounds leave a factor of 2 and 1.5 of room.
   */
  saturationElectronsAtIso100: [1_500, 150_000] as [number, number],
  /**
   * Without ISO: shot-noise variance over the signal span, relative to the read noise. At least
   * 1 passes; below 0.3 (noise practically independent of signal) fails; between is undecided.
   */
  minShotToReadNoise: 1,
  failShotToReadNoise: 0.3,
  /** A fit without any shot-noise term accuses only over at least this many decades of signal. */
  minDecadesForNoShotNoise: 1.5,
  /** Darkest-band noise variance / optical-black variance (the same read noise, measured twice). */
  readNoiseRatio: [0.35, 3] as [number, number],
  /** Read noise is compared only when the codes near black are finer than this many noise sigmas. */
  maxStepToReadSigma: 1,
  /** |optical black mean - black level| above max(this, 2% of range) = the declared black level is off (undecided). */
  maxBlackMismatch: 3,
  /** R/G and B/G both within this of 1 = the planes are indistinguishable (greyscale posed as CFA). */
  minPlaneContrast: 0.02,
  /** G1/G2 further than this from 1 = the two green planes are not the same filter. */
  maxGreenImbalance: 0.1,
  /** Flat patches needed before noise statistics are read. */
  minFlatPatches: 200,
  /**
   * Noise is read only where it is not the encoding's rounding: when the code spacing's own
   * variance (q^2/12) is more than this share of the flat-patch variance in the median band,
   * the noise checks are undecided (a coarse companding curve adds signal-proportional, white
   * rounding noise that imitates shot noise).
   */
  maxQuantisationShare: 0.5,
  /**
   * Flat patches count as noise-dominated when the photon-transfer fit holds, or when the bands
   * follow one power law (log-log R² at least this) with a noise-like exponent (at most
   * maxNoiseExponent; texture gives ~2).
   */
  minLogLogR2: 0.9,
  maxNoiseExponent: 1.2,
} as const;

type Verdict = 'pass' | 'fail' | 'undecided';

interface Check {
  verdict: Verdict;
  reason: string;
  measured: Record<string, unknown>;
  thresholds: Record<string, unknown>;
  /** 0..1: how far inside its bounds a passing check is. */
  margin?: number;
}

/** Checks that must all pass for a positive verdict. */
const coreChecks = ['container_origin', 'black_level', 'photon_transfer', 'noise_whiteness', 'cross_colour_independence', 'interpolation_periodicity', 'duplicate_pixels', 'duplicated_regions'] as const;

const clamp01 = (v: number): number => Math.min(1, Math.max(0, v));
const round = (v: number, digits = 4): number => (Number.isFinite(v) ? Number(v.toFixed(digits)) : v);

function containerOrigin(raw: SensorData): Check {
  const c = raw.container;
  const thresholds = { rule: 'CFA data read from the sensor image, not resampled from LinearRaw, not lossy-compressed' };
  const measured = { cfaSource: c.cfaSource, photometric: c.photometric, compression: c.sensorCompressionName, software: c.software, dngVersion: c.dngVersion };
  if (c.cfaSource === 'resampled_from_linear_raw' || c.photometric === 'LinearRaw') {
    return {
      verdict: 'fail',
      reason: `the file stores demosaiced linear RGB (DNG LinearRaw${c.software ? `, written by ${String(c.software)}` : ''}), not the sensor's CFA mosaic: it is a converted, not an original, sensor record`,
      measured,
      thresholds,
    };
  }
  if (c.sensorCompression === 34892) {
    return {
      verdict: 'undecided',
      reason: 'the sensor data is lossy-compressed (DNG 1.4 lossy JPEG): the noise statistics the other checks read are not preserved',
      measured,
      thresholds,
    };
  }
  return { verdict: 'pass', reason: 'the mosaic is read from the sensor image of the container', measured, thresholds, margin: 1 };
}

function blackLevel(raw: SensorData): Check {
  const optical = raw.container.opticalBlack as { mean: number[]; std: number[] } | undefined;
  const range = raw.whiteLevel - raw.blackLevel;
  const allowed = Math.max(integrityThresholds.maxBlackMismatch, 0.02 * range);
  const thresholds = { blackBelowFractionOfWhite: 0.5, maxOpticalBlackMismatch: allowed };
  const measured: Record<string, unknown> = { blackLevel: raw.blackLevel, whiteLevel: raw.whiteLevel };
  if (!(raw.blackLevel >= 0 && raw.blackLevel < 0.5 * raw.whiteLevel)) {
    return { verdict: 'undecided', reason: `black level ${raw.blackLevel} is implausible for white level ${raw.whiteLevel}: the levels the file declares do not fit its data`, measured, thresholds };
  }
  if (!optical) return { verdict: 'pass', reason: 'black level is within range (no masked pixels to cross-check)', measured, thresholds, margin: 0.5 };
  const mean = optical.mean.reduce((a, b) => a + b, 0) / optical.mean.length;
  const mismatch = Math.abs(mean - raw.blackLevel);
  Object.assign(measured, { opticalBlackMean: round(mean, 2), opticalBlackStd: optical.std.map((s) => round(s, 3)), mismatch: round(mismatch, 2) });
  if (mismatch > allowed) {
    return {
      verdict: 'undecided',
      reason: `the masked (optically black) pixels average ${round(mean, 1)}, far from the declared black level ${raw.blackLevel}: the declared level is not the sensor's`,
      measured,
      thresholds,
    };
  }
  return { verdict: 'pass', reason: 'the masked pixels confirm the declared black level', measured, thresholds, margin: clamp01(1 - mismatch / allowed) };
}

function photonTransfer(raw: SensorData, stats: MosaicStats, iso: number | undefined): Check {
  const t = integrityThresholds;
  const fit = stats.photonTransfer;
  const enc = stats.encoding;
  const thresholds = {
    minR2: t.minPhotonTransferR2,
    minBands: t.minBands,
    readVarianceTolerance: t.readVarianceTolerance,
    readVarianceStandardErrors: t.readVarianceStandardErrors,
    saturationElectronsAtIso100: t.saturationElectronsAtIso100,
    minShotToReadNoise: t.minShotToReadNoise,
    failShotToReadNoise: t.failShotToReadNoise,
  };
  const measured: Record<string, unknown> = {
    bands: stats.bands.map((b) => ({ signal: round(b.signal, 1), variance: round(b.variance, 2), quantisation: round(b.quantisation, 2), patches: b.patches })),
    fit: fit && {
      model: fit.model,
      logLogExponent: fit.logLog && round(fit.logLog.slope, 3),
      gainDnPerElectron: round(fit.gain, 5),
      readVariance: round(fit.readVariance, 3),
      readVarianceError: round(fit.readVarianceError, 3),
      prnu: round(fit.prnu, 8),
      r2: round(fit.r2, 4),
      signalSpan: round(fit.signalSpan, 1),
      bandsUsed: fit.bandsUsed,
      ...(fit.excludedAbove === undefined ? {} : { excludedAbove: round(fit.excludedAbove, 1) }),
    },
    levels: { declaredWhite: raw.whiteLevel, effectiveWhite: enc.effectiveWhite, saturation: enc.saturation, dataMaximum: enc.dataMaximum, black: raw.channelBlack ?? raw.blackLevel },
  };
  const undecided = (reason: string): Check => ({ verdict: 'undecided', reason, measured, thresholds });
  if (lossyContainer(raw)) return undecided('the sensor data is lossy-compressed: its noise is not the sensor\'s');
  const share = quantisationShare(stats);
  measured.quantisationShare = round(share, 3);
  if (share > t.maxQuantisationShare) {
    return undecided(`the encoding's code spacing accounts for ${round(100 * share, 0)}% of the flat-area variance (median band): rounding, not sensor noise, sets it`);
  }
  if (!fit || fit.bandsUsed < t.minBands) {
    return undecided('too few brightness levels with flat areas to read the noise-vs-signal relation');
  }
  if (fit.r2 < t.minPhotonTransferR2) {
    return undecided(`noise does not follow the photon-transfer curve against signal (R² ${round(fit.r2, 3)}): texture, lossy compression or a non-linear encoding dominates, so shot noise cannot be read`);
  }
  const slope = fit.logLog?.slope;
  if (slope === undefined || !(slope > 0) || slope > t.maxNoiseExponent) {
    return undecided(`the variance of the flat areas grows with signal as scene texture does, or as noise does against a wrong black level (power ${slope === undefined ? '-' : round(slope, 2)}; noise: at most ${t.maxNoiseExponent}): shot noise cannot be read`);
  }
  const darkest = Math.max(0, stats.bands[0]!.variance - stats.bands[0]!.quantisation);
  const tolerance = Math.max(1, t.readVarianceTolerance * darkest, t.readVarianceStandardErrors * fit.readVarianceError);
  if (fit.readVariance < -tolerance) {
    const offset = fit.gain > 0 ? -fit.readVariance / fit.gain : undefined;
    if (offset !== undefined) measured.zeroNoiseSignal = round(offset, 1);
    return undecided(
      `the fitted read noise is negative (${round(fit.readVariance, 1)} DN², beyond the ${round(tolerance, 1)} the fit's uncertainty allows)${offset === undefined ? '' : `: the noise line reaches zero ${round(offset, 1)} DN above the declared black level`}, so the black level or the linearisation is not what the file declares`,
    );
  }
  const read = Math.max(fit.readVariance, 0);
  const shotToRead = (fit.gain * fit.signalSpan) / Math.max(read, 1e-6);
  // Leaving out the falling bright bands adapts the fit to an encoding: it may confirm shot
  // noise, never accuse.
  const adapted = fit.excludedAbove !== undefined;
  measured.shotToReadNoise = round(shotToRead, 3);
  if (fit.gain === 0) {
    // Only a constant and a quadratic term fit: no shot noise at all. Accuse only when the bands
    // span enough signal for the linear and quadratic terms to be told apart.
    const decades = Math.log10(Math.max(...stats.bands.slice(0, fit.bandsUsed).map((b) => b.signal)) / Math.max(stats.bands[0]!.signal, 1e-9));
    measured.signalDecades = round(decades, 2);
    if (adapted || decades < t.minDecadesForNoShotNoise) {
      return undecided(`no shot-noise term fits, but over ${round(decades, 2)} decades of signal${adapted ? ' with the bright bands left out' : ''} a linear and a quadratic rise cannot be told apart`);
    }
    return { verdict: 'fail', reason: `noise does not grow linearly with signal over ${round(decades, 2)} decades: no photon shot noise, as in synthetic or smoothed data`, measured, thresholds };
  }
  if (iso !== undefined) {
    const black = Math.min(raw.blackLevel, ...(raw.channelBlack ?? []));
    const electrons = ((enc.effectiveWhite - black) / fit.gain) * (iso / 100);
    measured.saturationElectronsAtIso100 = Math.round(electrons);
    const [low, high] = t.saturationElectronsAtIso100;
    if (electrons > high && adapted) {
      return undecided(`the noise implies ${Math.round(electrons)} electrons at saturation (ISO 100), above ${high}, but only with the bright bands above ${round(fit.excludedAbove!, 0)} DN left out`);
    }
    const ambiguous = enc.ambiguousWhite;
    let mostElectrons = electrons;
    if (ambiguous && electrons <= high) {
      // The data's own range gives the fewest electrons the noise allows; the declared white
      // level the most. A real sensor can be either: pass only when both are a camera's.
      const atDeclared = ((ambiguous.declared - black) / fit.gain) * (iso / 100);
      measured.saturationElectronsAtDeclaredWhite = Math.round(atDeclared);
      mostElectrons = atDeclared;
      if (atDeclared > high) {
        return undecided(
          `the noise implies ${Math.round(electrons)} electrons at saturation (ISO 100) if the data's own range (${ambiguous.data}) is the sensor's, but ${Math.round(atDeclared)}, above ${high}, at the declared white level ${ambiguous.declared}: data that never reach saturation cannot show which applies`,
        );
      }
    }
    if (electrons > high) {
      return {
        verdict: 'fail',
        reason: `the noise grows too little with signal for a camera sensor: it implies ${Math.round(electrons)} electrons at saturation (ISO 100), above ${high}`,
        measured,
        thresholds,
      };
    }
    if (electrons < low) {
      return undecided(`the noise grows faster with signal than a camera sensor's: it implies ${Math.round(electrons)} electrons at saturation (ISO 100), below ${low}; extra noise or a mis-declared ISO or white level, not a sign of fabrication`);
    }
    return { verdict: 'pass', reason: 'noise variance rises with signal at a gain a real sensor has (shot noise) above a read-noise floor', measured, thresholds, margin: clamp01(Math.min(Math.log(electrons / low), Math.log(high / mostElectrons)) / Math.log(4)) };
  }
  if (shotToRead < t.failShotToReadNoise && !adapted) {
    return { verdict: 'fail', reason: 'noise is nearly independent of signal: no photon shot noise', measured, thresholds };
  }
  if (shotToRead < t.minShotToReadNoise || shotToRead < t.failShotToReadNoise) {
    return undecided(`shot noise over the signal span is only ${round(shotToRead, 2)}x the read noise (no ISO to judge the gain by)`);
  }
  return { verdict: 'pass', reason: 'noise variance rises linearly with signal above a read-noise floor', measured, thresholds, margin: clamp01(Math.log(shotToRead) / Math.log(20)) };
}

function lossyContainer(raw: SensorData): boolean {
  return raw.container.sensorCompression === 34892;
}

function readNoiseFloor(raw: SensorData, stats: MosaicStats): Check {
  const optical = raw.container.opticalBlack as { std: number[] } | undefined;
  const [low, high] = integrityThresholds.readNoiseRatio;
  const thresholds = { ratio: [low, high] };
  const darkest = stats.bands[0];
  if (!optical || !darkest) return { verdict: 'undecided', reason: 'no masked pixels or no dark flat areas to compare read noise', measured: {}, thresholds };
  const opticalVariance = optical.std.reduce((a, s) => a + s * s, 0) / optical.std.length;
  const ratio = darkest.variance / Math.max(opticalVariance, 1e-6);
  const step = stats.encoding.stepAtBlack;
  const measured = { darkestBandSignal: round(darkest.signal, 1), darkestBandVariance: round(darkest.variance, 3), opticalBlackVariance: round(opticalVariance, 3), ratio: round(ratio, 3), codeStepAtBlack: round(step, 2) };
  if (step > integrityThresholds.maxStepToReadSigma * Math.sqrt(opticalVariance)) {
    return { verdict: 'undecided', reason: `the codes near black are ${round(step, 1)} DN apart, coarser than the read noise (σ ${round(Math.sqrt(opticalVariance), 2)}): the encoding hides it`, measured, thresholds };
  }
  if (ratio < low || ratio > high) {
    return { verdict: 'fail', reason: `noise in the darkest image areas is ${round(ratio, 2)}x the read noise of the masked pixels: the image area was ${ratio < low ? 'smoothed or interpolated' : 'given extra noise'}`, measured, thresholds };
  }
  return { verdict: 'pass', reason: 'noise in the darkest image areas matches the read noise of the masked pixels', measured, thresholds, margin: clamp01(Math.min(Math.log(ratio / low), Math.log(high / ratio)) / Math.log(2)) };
}

/** Median over the bands of the share of their variance that is the encoding's rounding. */
export function quantisationShare(stats: MosaicStats): number {
  const shares = stats.bands.map((b) => (b.variance > 0 ? b.quantisation / b.variance : 1)).sort((a, b) => a - b);
  return shares.length ? shares[Math.floor((shares.length - 1) / 2)]! : 1;
}

function noiseGated(raw: SensorData, stats: MosaicStats): string | undefined {
  if (lossyContainer(raw)) return 'the sensor data is lossy-compressed';
  const share = quantisationShare(stats);
  if (share > integrityThresholds.maxQuantisationShare) return `the encoding's code spacing makes ${round(100 * share, 0)}% of the flat-area variance`;
  if (stats.flatPatches < integrityThresholds.minFlatPatches) return `only ${stats.flatPatches} flat patches`;
  const t = integrityThresholds;
  const fit = stats.photonTransfer;
  const noiseLike = (p: { slope: number } | null | undefined): boolean => p !== null && p !== undefined && p.slope > 0 && p.slope <= t.maxNoiseExponent;
  if (fit && fit.bandsUsed >= t.minBands && fit.r2 >= t.minPhotonTransferR2 && noiseLike(fit.logLog)) return undefined;
  const power = stats.logLogFit;
  if (power && stats.bands.length >= t.minBands && power.r2 >= t.minLogLogR2 && noiseLike(power)) return undefined;
  return `the flat areas are not shown to be noise-dominated (no photon-transfer fit; log-log R² ${power ? round(power.r2, 3) : '-'}, exponent ${power ? round(power.slope, 2) : '-'})`;
}

function noiseWhiteness(raw: SensorData, stats: MosaicStats): Check {
  const limit = integrityThresholds.maxSamePlaneResidualCorrelation;
  const rho = stats.samePlaneResidualCorrelation;
  const measured = { samePlaneResidualCorrelation: round(rho), whiteNoiseExpectation: -0.4, flatPatches: stats.flatPatches };
  const thresholds = { pass: limit, fail: integrityThresholds.failSamePlaneResidualCorrelation };
  const gate = noiseGated(raw, stats);
  if (gate) return { verdict: 'undecided', reason: `noise whiteness not measurable: ${gate}`, measured, thresholds };
  if (rho > integrityThresholds.failSamePlaneResidualCorrelation) return { verdict: 'fail', reason: 'neighbouring same-colour pixels share their noise: the planes were smoothed or interpolated', measured, thresholds };
  if (rho > limit) {
    return { verdict: 'undecided', reason: `neighbouring same-colour pixels share some of their noise (${round(rho, 3)}): more than any calibrated camera, less than smoothed or interpolated data`, measured, thresholds };
  }
  return { verdict: 'pass', reason: 'per-pixel noise is independent, as photon and read noise are', measured, thresholds, margin: clamp01((limit - rho) / 0.2) };
}

function crossColour(raw: SensorData, stats: MosaicStats): Check {
  const limit = integrityThresholds.maxCrossPlaneResidualCorrelation;
  const c = stats.crossPlaneResidualCorrelation;
  const measured = { crossPlaneResidualCorrelation: round(c) };
  const thresholds = { max: limit };
  const gate = noiseGated(raw, stats);
  if (gate) return { verdict: 'undecided', reason: `cross-colour independence not measurable: ${gate}`, measured, thresholds };
  if (c > limit) return { verdict: 'fail', reason: 'adjacent pixels of different colours have correlated noise: colours were interpolated from shared samples (demosaiced data)', measured, thresholds };
  return { verdict: 'pass', reason: 'adjacent different-colour pixels have independent noise', measured, thresholds, margin: clamp01((limit - c) / limit) };
}

function periodicity(stats: MosaicStats): Check {
  const limit = integrityThresholds.maxInterpolationPeriodicity;
  const p = stats.interpolationPeriodicity;
  const measured = { evenOddResidualEnergyRatio: round(p) };
  const thresholds = { max: limit };
  if (stats.flatPatches < integrityThresholds.minFlatPatches) return { verdict: 'undecided', reason: 'too few flat patches', measured, thresholds };
  if (p > limit) return { verdict: 'fail', reason: 'residual energy alternates between even and odd samples: the planes were upscaled by interpolation', measured, thresholds };
  return { verdict: 'pass', reason: 'no interpolation periodicity', measured, thresholds, margin: clamp01((limit - p) / (limit - 1)) };
}

function duplicates(raw: SensorData, stats: MosaicStats): Check {
  const limit = integrityThresholds.maxDuplicateExcess;
  const d = stats.duplicateExcess;
  const measured = { duplicateExcess: round(d, 3), quantizationStep: round(stats.quantizationStep, 2) };
  const thresholds = { max: limit };
  if (stats.flatPatches < integrityThresholds.minFlatPatches) return { verdict: 'undecided', reason: 'too few flat patches', measured, thresholds };
  if (lossyContainer(raw)) return { verdict: 'undecided', reason: 'the sensor data is lossy-compressed: equal neighbours are a codec effect', measured, thresholds };
  if (d > limit) return { verdict: 'fail', reason: `neighbouring pixels are exactly equal ${round(d, 1)}x more often than noise allows: duplicated or heavily quantised data`, measured, thresholds };
  return { verdict: 'pass', reason: 'no duplicated pixels', measured, thresholds, margin: clamp01((limit - d) / (limit - 1)) };
}

function duplicatedRegions(stats: MosaicStats): Check {
  const limit = integrityThresholds.maxRepeatedBlocks;
  const d = stats.duplicatedRegions;
  const measured = { plane: d.plane, blocksIndexed: d.indexed, repeatedBlocks: d.repeatedBlocks, strongestDisplacement: d.strongest };
  const thresholds = { maxBlocksAtOneDisplacement: limit, blockPixels: 16 };
  if (d.strongest && d.strongest.blocks > limit) {
    return {
      verdict: 'fail',
      reason: `${d.strongest.blocks} textured 16x16-pixel blocks recur sample for sample ${d.strongest.dx} px across and ${d.strongest.dy} px down: a region of the mosaic was copied (sensor noise never repeats)`,
      measured,
      thresholds,
    };
  }
  return { verdict: 'pass', reason: 'no region of the mosaic recurs elsewhere', measured, thresholds, margin: 1 };
}

function planeStructure(raw: SensorData, stats: MosaicStats): Check {
  const t = integrityThresholds;
  const rel = stats.planes.relativeToGreen;
  const pattern = [...raw.cfaPattern];
  const of = (letter: string): number[] => pattern.flatMap((c, i) => (c === letter ? [rel[i]!] : []));
  const greens = of('G');
  const red = of('R')[0];
  const blue = of('B')[0];
  const measured = { pattern: raw.cfaPattern, planeMeans: stats.planes.mean.map((v) => round(v, 2)), relativeToGreen: rel.map((v) => round(v, 4)) };
  const thresholds = { minPlaneContrast: t.minPlaneContrast, maxGreenImbalance: t.maxGreenImbalance };
  if (greens.length !== 2 || red === undefined || blue === undefined) {
    return { verdict: 'undecided', reason: `not an RGGB-family Bayer pattern (${raw.cfaPattern})`, measured, thresholds };
  }
  const imbalance = Math.abs(greens[0]! / greens[1]! - 1);
  if (imbalance > t.maxGreenImbalance) return { verdict: 'fail', reason: 'the two green planes differ like different filters', measured, thresholds };
  if (Math.abs(red - 1) < t.minPlaneContrast && Math.abs(blue - 1) < t.minPlaneContrast) {
    return { verdict: 'fail', reason: 'red, green and blue planes have the same level: a white-balanced or greyscale image posed as a mosaic', measured, thresholds };
  }
  return { verdict: 'pass', reason: 'the four CFA planes have the levels of distinct colour filters, with matching greens', measured, thresholds, margin: 1 };
}

function combine(checks: Record<string, Check>): { result: boolean | null; confidence: number; summary: string } {
  const entries = Object.entries(checks);
  const failed = entries.filter(([, c]) => c.verdict === 'fail');
  if (failed.length > 0) {
    const containerFail = checks.container_origin?.verdict === 'fail';
    return {
      result: false,
      confidence: containerFail ? 0.95 : 1 - 0.5 ** (failed.length + 1),
      summary: `not original sensor data: ${failed.map(([name, c]) => `${name} (${c.reason})`).join('; ')}`,
    };
  }
  const core = coreChecks.map((name) => checks[name]!);
  const undecided = coreChecks.filter((name) => checks[name]!.verdict !== 'pass');
  if (undecided.length > 0) {
    return { result: null, confidence: 0, summary: `could not be decided: ${undecided.map((name) => `${name} (${checks[name]!.reason})`).join('; ')}` };
  }
  const margin = core.reduce((s, c) => s + (c.margin ?? 0), 0) / core.length;
  return { result: true, confidence: round(0.6 + 0.4 * margin, 3), summary: 'real sensor data: every core check passed' };
}

/** Integrity of any decoded mosaic, including non-product formats used for calibration (KDC). */
export function assessSensorIntegrity(raw: SensorData): AnalysisResult {
  const pattern = [...raw.cfaPattern];
  const greenPlanes = pattern.flatMap((c, i) => (c === 'G' ? [i] : []));
  const stats = measureMosaic(raw, greenPlanes);
  const checks: Record<string, Check> = {
    container_origin: containerOrigin(raw),
    black_level: blackLevel(raw),
    cfa_planes: planeStructure(raw, stats),
    photon_transfer: photonTransfer(raw, stats, raw.metadata.iso),
    read_noise_floor: readNoiseFloor(raw, stats),
    noise_whiteness: noiseWhiteness(raw, stats),
    cross_colour_independence: crossColour(raw, stats),
    interpolation_periodicity: periodicity(stats),
    duplicate_pixels: duplicates(raw, stats),
    duplicated_regions: duplicatedRegions(stats),
  };
  const { result, confidence, summary } = combine(checks);
  return {
    analysis: 'raw_integrity',
    result,
    confidence_score: confidence,
    details: {
      summary,
      checks,
      levels: {
        clippedFraction: round(stats.clippedFraction, 6),
        belowBlackFraction: round(stats.belowBlackFraction, 6),
        topPile: stats.topPile,
        quantizationStep: round(stats.quantizationStep, 2),
      },
      flatPatches: stats.flatPatches,
      coreChecks,
      thresholds: integrityThresholds,
    },
  };
}

export function analyzeRawIntegrity(raw: DecodedRaw): AnalysisResult {
  return assessSensorIntegrity(raw);
}
