/**
 * Colour histogram comparison after a global colour normalisation: the reference is mapped by
 * the least-squares 3x4 colour transform onto the image (absorbing white balance, exposure,
 * saturation and black-and-white conversion), then per-channel histograms are compared by
 * the Bhattacharyya coefficient. A different scene cannot be mapped by one global transform:
 * the fit regresses to the mean and the histograms stop overlapping.
 */
import type { AnalysisResult } from '../types.js';
import type { ComparisonFrame } from './frame.js';
import { round } from './ssim.js';
import { applyColourTransform, fitColourTransform } from './tone.js';

export const histogramThresholds = {
  /** Mean Bhattacharyya coefficient at or above which the colours correspond. */
  minSimilarity: 0.9,
} as const;

const bins = 32;

export function analyzeColorHistogram(frame: ComparisonFrame): AnalysisResult {
  const t = fitColourTransform(frame.reference.data, frame.image.data, frame.mask);
  const mapped = applyColourTransform(frame.reference.data, t);
  const perChannel: number[] = [];
  for (let c = 0; c < 3; c++) {
    const ha = new Float64Array(bins);
    const hb = new Float64Array(bins);
    let n = 0;
    for (let p = 0; p < frame.mask.length; p++) {
      if (!frame.mask[p]) continue;
      ha[Math.min(bins - 1, Math.floor((frame.image.data[p * 3 + c]! / 256) * bins))]!++;
      hb[Math.min(bins - 1, Math.max(0, Math.floor(mapped[c]![p]! * bins)))]!++;
      n++;
    }
    let bc = 0;
    for (let i = 0; i < bins; i++) bc += Math.sqrt((ha[i]! / n) * (hb[i]! / n));
    perChannel.push(n ? bc : 0);
  }
  const similarity = (perChannel[0]! + perChannel[1]! + perChannel[2]!) / 3;
  return {
    analysis: 'color_histogram',
    result: similarity >= histogramThresholds.minSimilarity,
    confidence_score: round(0.5 + 0.5 * Math.min(1, Math.abs(similarity - histogramThresholds.minSimilarity) / 0.08)),
    details: {
      similarity: round(similarity),
      per_channel: perChannel.map((v) => round(v)),
      colour_transform: t.map((v) => round(v)),
      bins,
      thresholds: histogramThresholds,
    },
  };
}
