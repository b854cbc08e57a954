/**
 * Processing-chain plausibility: an export may apply only global operations. The chain is
 * modelled as a 3x4 colour transform followed by a monotone tone curve per channel, fitted
 * from the reference to the image. Two things break it:
 *  - the unconstrained luminance curve reverses (inversion, solarisation): no tone curve;
 *  - residuals that the global model leaves concentrated in one place: a local edit.
 */
import type { AnalysisResult } from '../types.js';
import type { ComparisonFrame } from './frame.js';
import { findRegions, type BlockGrid } from './regions.js';
import { round } from './ssim.js';
import {
  applyColourTransform,
  applyToneCurve,
  fitColourTransform,
  fitToneCurve,
  largestToneReversal,
  lumaArray,
} from './tone.js';

export const chainThresholds = {
  /** Largest drop of the luminance tone curve (0..1 scale) still taken as monotone. */
  maxToneReversal: 0.08,
  /** A block is locally edited when its residual exceeds this multiple of the median block... */
  residualRatio: 3.5,
  /** ...and this absolute level (mean absolute error, 0..1). */
  residualFloor: 0.06,
  /** Edited regions larger than this fraction of the covered area fail the chain. */
  regionArea: 0.004,
} as const;

const block = 16;

export function analyzeProcessingChain(frame: ComparisonFrame): AnalysisResult {
  const { width: w, height: h } = frame.image;
  const t = fitColourTransform(frame.reference.data, frame.image.data, frame.mask);
  const mapped = applyColourTransform(frame.reference.data, t);
  const residual = new Float32Array(w * h);
  for (const c of [0, 1, 2] as const) {
    const target = new Float32Array(w * h);
    for (let p = 0; p < w * h; p++) target[p] = frame.image.data[p * 3 + c]! / 255;
    const curve = fitToneCurve(clamp(mapped[c]!), target, frame.mask, 32);
    const fitted = applyToneCurve(curve, clamp(mapped[c]!));
    for (let p = 0; p < w * h; p++) residual[p]! += Math.abs(fitted[p]! - target[p]!) / 3;
  }
  const lumaCurve = fitToneCurve(lumaArray(frame.reference.data), lumaArray(frame.image.data), frame.mask, 32);
  const reversal = largestToneReversal(lumaCurve, (frame.coverage * w * h) / 2000);

  const grid: BlockGrid = { cols: Math.floor(w / block), rows: Math.floor(h / block), size: block };
  const scores = new Float32Array(grid.cols * grid.rows).fill(NaN);
  const valid: number[] = [];
  for (let r = 0; r < grid.rows; r++) {
    for (let c = 0; c < grid.cols; c++) {
      let n = 0;
      let s = 0;
      for (let dy = 0; dy < block; dy++)
        for (let dx = 0; dx < block; dx++) {
          const i = (r * block + dy) * w + c * block + dx;
          if (frame.mask[i]) { n++; s += residual[i]!; }
        }
      if (n === block * block) {
        scores[r * grid.cols + c] = s / n;
        valid.push(s / n);
      }
    }
  }
  valid.sort((a, b) => a - b);
  const medianResidual = valid.length ? valid[valid.length >> 1]! : 0;
  const limit = Math.max(chainThresholds.residualFloor, chainThresholds.residualRatio * medianResidual);
  const anomalous = Uint8Array.from(scores, (s) => (s > limit ? 1 : 0));
  const regions = findRegions(anomalous, scores, grid, valid.length, frame.toImageScale);
  const largest = regions[0]?.area_fraction ?? 0;
  const monotone = reversal <= chainThresholds.maxToneReversal;
  const global = largest <= chainThresholds.regionArea;
  return {
    analysis: 'processing_chain',
    result: valid.length ? monotone && global : null,
    confidence_score: round(
      0.5 + 0.5 * Math.min(1, Math.abs(largest - chainThresholds.regionArea) / chainThresholds.regionArea, Math.abs(reversal - chainThresholds.maxToneReversal) / 0.05),
    ),
    details: {
      model: '3x4 colour transform + monotone tone curve per channel',
      colour_transform: t.map((v) => round(v)),
      tone_curve_luma: Array.from(lumaCurve.values, (v) => round(v, 3)),
      tone_reversal: round(reversal),
      monotone,
      median_block_residual: round(medianResidual),
      residual_limit: round(limit),
      local_edit_regions: regions.map((r) => ({ ...r, area_fraction: round(r.area_fraction), mean_score: round(r.mean_score) })),
      largest_region_fraction: round(largest),
      thresholds: chainThresholds,
    },
  };
}

function clamp(v: Float32Array): Float32Array {
  return v.map((x) => (x < 0 ? 0 : x > 1 ? 1 : x));
}
