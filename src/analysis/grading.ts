/**
 * Grading: one pure function from the analysis results (and facts about the pair the analyses
 * cannot express) to the Grade of spec 2.1, implementing grading rules 1–4 of spec section 1.
 *
 * Decisions (see docs/analysis.md):
 * - raw pairs carry no C2PA verdict: `verdict`/`verdict_reason` are null, except `unrated`
 *   pairs, which get verdict `unrated` / `unrated_indeterminate` (the evidence cannot decide).
 * - `provisional`: the pixels correspond and nothing contradicts, but the RAW is not proven
 *   original sensor data (converter-written DNG, or integrity undecided). `result` stays true,
 *   `capture_verified` false, no badge (rule 4). Integrity undecided while a pixel analysis or
 *   the recapture check is undecided too grades `unrated`: nothing is proven either way.
 * - `flagged` for the RAW itself only when raw_integrity is false, which it is only on positive
 *   evidence of fabrication; an encoding it cannot read leaves it null (never flagged).
 * - `result` (legacy) is true for verified and provisional, false otherwise.
 * - `result_confidence` is the mean export similarity: SSIM, pHash similarity (1 − d/63) and
 *   histogram similarity, whichever were computed; 0 when none were.
 */
import type { AnalysisName, AnalysisResult, Grade } from './types.js';

export interface GradingFacts {
  /** Rule 3: the RAW's container is known but its compression variant cannot be decoded. */
  unsupportedVariant?: { format: string; variant: string };
  /** The reference could not be registered to the image at all (another scene). */
  registrationFailed?: boolean;
  /**
   * Rule 2: the registered frame covers only part of the image and the rest is new, textured
   * content (stitched panorama, blend, stack).
   */
  multiFrame?: boolean;
  /** The RAW was written by a converter (e.g. linear/reduced DNG): not original sensor data. */
  rawConverted?: boolean;
  /** The RAW's format, when the recapture check is not calibrated on it (types.ts recaptureCalibratedFormats): its finding alone never flags. */
  recaptureUncalibrated?: string;
}

const pixelAnalyses: AnalysisName[] = ['ssim', 'perceptual_hash', 'color_histogram', 'processing_chain'];

export function gradePair(results: AnalysisResult[], facts: GradingFacts = {}): Grade {
  const by = new Map(results.map((r) => [r.analysis, r]));
  const failed = (name: AnalysisName) => by.get(name)?.result === false;
  const similarity = resultConfidence(by);
  const grade = (level: Grade['assurance_level'], reason: string): Grade => ({
    assurance_level: level,
    assurance_reason: reason,
    verdict: level === 'unrated' ? 'unrated' : null,
    verdict_reason: level === 'unrated' ? 'unrated_indeterminate' : null,
    capture_verified: level === 'verified',
    result: level === 'verified' || level === 'provisional',
    result_confidence: similarity,
  });

  if (facts.unsupportedVariant) {
    const { format, variant } = facts.unsupportedVariant;
    return grade('unrated', `The ${format} file uses a compression variant the decoder cannot read (${variant}); the pair cannot be rated.`);
  }
  if (facts.registrationFailed) {
    return grade('flagged', 'The image does not show the scene recorded in the RAW.');
  }
  const pixelFailures = pixelAnalyses.filter(failed);
  if (facts.multiFrame) {
    // Rule 2: never flagged for the new content outside the frame; a change inside the RAW's
    // field of view still flags.
    return pixelFailures.length
      ? grade('flagged', `The image extends beyond the RAW's frame and the part the RAW covers differs (${pixelFailures.join(', ')}).`)
      : grade('unrated', 'The image is assembled from several frames (panorama, blend or stack): the RAW accounts for only part of it.');
  }
  const integrity = by.get('raw_integrity');
  if (integrity?.result === false && !facts.rawConverted) {
    // raw_integrity is false only on evidence of fabrication (docs/analysis.md, "Flag only on
    // positive evidence"); statistics that do not fit for reasons of encoding leave it null.
    return grade('flagged', `The RAW does not hold real sensor data${evidenceOf(integrity)}.`);
  }
  if (pixelFailures.length) {
    return grade('flagged', `The image does not correspond to the RAW's pixels (${pixelFailures.join(', ')}).`);
  }
  if (failed('recapture')) {
    // Never an accusation on a sensor the check was not calibrated on: what it found is stated, and nothing is rated.
    if (facts.recaptureUncalibrated) {
      return grade('unrated', `The image matches the RAW, but the RAW shows periodic patterns across the frame and the recapture check is not calibrated on ${facts.recaptureUncalibrated} sensors: whether the scene was recaptured could not be checked.`);
    }
    return grade('flagged', 'The RAW shows a screen or print: the scene was recaptured.');
  }
  if (failed('exif')) {
    const fields = by.get('exif')?.details.mismatched_fields;
    return grade('flagged', `The image's EXIF contradicts the RAW${Array.isArray(fields) ? ` (${fields.join(', ')})` : ''}.`);
  }
  if (facts.rawConverted) {
    return grade('provisional', 'The image matches the RAW, but the RAW was written by a converter and is not original sensor data.');
  }
  if (integrity?.result !== true) {
    const why = undecidedOf(integrity);
    const open = [...pixelAnalyses, 'recapture' as const].filter((name) => by.get(name)?.result !== true);
    if (open.length) {
      return grade('unrated', `The RAW could not be confirmed as original sensor data${why}, and ${open.join(', ')} could not be decided: the pair cannot be rated.`);
    }
    return grade('provisional', `The image matches the RAW, but the RAW could not be confirmed as original sensor data${why}.`);
  }
  const exifNote = by.get('exif')?.result === true ? '' : ' (no EXIF to compare; advisory)';
  return grade('verified', `The RAW holds real sensor data and the image is a faithful rendering of it${exifNote}.`);
}

/** The failed checks named by raw_integrity, for the assurance reason. */
function evidenceOf(integrity: AnalysisResult): string {
  const checks = integrity.details.checks as Record<string, { verdict?: string }> | undefined;
  const failed = checks ? Object.entries(checks).filter(([, c]) => c.verdict === 'fail').map(([name]) => name) : [];
  return failed.length ? ` (evidence: ${failed.join(', ')})` : '';
}

/** Why raw_integrity stayed undecided (its checks that did not pass), for the assurance reason. */
function undecidedOf(integrity: AnalysisResult | undefined): string {
  const checks = integrity?.details.checks as Record<string, { verdict?: string }> | undefined;
  const core = integrity?.details.coreChecks as string[] | undefined;
  if (!checks || !core) return '';
  const open = core.filter((name) => checks[name]?.verdict !== 'pass');
  return open.length ? ` (undecided: ${open.join(', ')}; the numbers are in its details)` : '';
}

function resultConfidence(by: Map<AnalysisName, AnalysisResult>): number {
  const values: number[] = [];
  const pick = (name: AnalysisName, key: string) => {
    const v = by.get(name)?.details[key];
    if (typeof v === 'number' && Number.isFinite(v)) values.push(Math.max(0, Math.min(1, v)));
  };
  pick('ssim', 'ssim');
  pick('perceptual_hash', 'similarity');
  pick('color_histogram', 'similarity');
  if (!values.length) return 0;
  return Math.round((values.reduce((a, b) => a + b, 0) / values.length) * 1e4) / 1e4;
}
