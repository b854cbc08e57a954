/**
 * SSIM of the registered luminance after a global monotone tone match (so exposure, contrast
 * and curve edits do not count as differences), on 8x8 blocks of the working frame.
 * Also produces the difference heatmap kept for the PSD export (blue = difference) and the
 * boxes of the regions whose structure differs.
 */
import type { AnalysisResult, RgbImage } from '../types.js';
import type { ComparisonFrame } from './frame.js';
import { findRegions, type BlockGrid, type Region } from './regions.js';
import { applyToneCurve, fitToneCurve, lumaArray } from './tone.js';

export const ssimThresholds = {
  /** Mean SSIM at or above which the image corresponds to the reference. */
  mean: 0.6,
  /** A block below this SSIM is structurally different... */
  block: 0.35,
  /**
   * ...and so is a textured block (σ above `textureSigma` on either side) whose correlation is
   * below `blockCorrelation`: SSIM's stabilising constant hides texture swaps in dark areas.
   */
  blockCorrelation: 0.3,
  textureSigma: 0.012,
  /** A differing region larger than this fraction of the covered area is a local change. */
  regionArea: 0.004,
} as const;

const block = 8;
const c1 = 0.01 ** 2;
const c2 = 0.03 ** 2;

export interface SsimOutcome {
  result: AnalysisResult;
  heatmap: RgbImage;
  regions: Region[];
  /** Per-block SSIM (NaN where the reference does not cover the block). */
  blockSsim: Float32Array;
  grid: BlockGrid;
}

export function analyzeSsim(frame: ComparisonFrame): SsimOutcome {
  const { width: w, height: h } = frame.image;
  const y = lumaArray(frame.image.data);
  const curve = fitToneCurve(lumaArray(frame.reference.data), y, frame.mask);
  const x = applyToneCurve(curve, lumaArray(frame.reference.data));
  const grid: BlockGrid = { cols: Math.floor(w / block), rows: Math.floor(h / block), size: block };
  const blockSsim = new Float32Array(grid.cols * grid.rows).fill(NaN);
  const anomalous = new Uint8Array(blockSsim.length);
  let sum = 0;
  let valid = 0;
  for (let r = 0; r < grid.rows; r++) {
    for (let c = 0; c < grid.cols; c++) {
      let n = 0, sx = 0, sy = 0, sxx = 0, syy = 0, sxy = 0;
      for (let dy = 0; dy < block; dy++) {
        for (let dx = 0; dx < block; dx++) {
          const i = (r * block + dy) * w + c * block + dx;
          if (!frame.mask[i]) continue;
          const a = x[i]!;
          const b = y[i]!;
          n++; sx += a; sy += b; sxx += a * a; syy += b * b; sxy += a * b;
        }
      }
      if (n < block * block) continue;
      const mx = sx / n, my = sy / n;
      const vx = sxx / n - mx * mx, vy = syy / n - my * my, cov = sxy / n - mx * my;
      const s = ((2 * mx * my + c1) * (2 * cov + c2)) / ((mx * mx + my * my + c1) * (vx + vy + c2));
      blockSsim[r * grid.cols + c] = s;
      const textured = Math.max(vx, vy) > ssimThresholds.textureSigma ** 2;
      const rho = cov / Math.sqrt(Math.max(1e-12, vx * vy));
      if (s < ssimThresholds.block || (textured && rho < ssimThresholds.blockCorrelation)) anomalous[r * grid.cols + c] = 1;
      sum += s;
      valid++;
    }
  }
  const mean = valid ? sum / valid : 0;
  const regions = findRegions(anomalous, blockSsim, grid, valid, frame.toImageScale);
  const largest = regions[0]?.area_fraction ?? 0;
  const heatmap = differenceHeatmap(x, y, frame.mask, w, h);
  const pass = valid > 0 && mean >= ssimThresholds.mean && largest <= ssimThresholds.regionArea;
  return {
    result: {
      analysis: 'ssim',
      result: valid > 0 ? pass : null,
      confidence_score: confidence(mean, largest),
      details: {
        ssim: round(mean),
        blocks_compared: valid,
        window: '8x8 blocks, stride 8, on tone-matched luminance',
        working_size: [w, h],
        coverage: round(frame.coverage),
        differing_regions: regions.map((r) => ({ ...r, area_fraction: round(r.area_fraction), mean_score: round(r.mean_score) })),
        largest_region_fraction: round(largest),
        thresholds: ssimThresholds,
      },
    },
    heatmap,
    regions,
    blockSsim,
    grid,
  };
}

/** Blue = absolute difference of tone-matched luminance (×4, saturating); black = identical. */
function differenceHeatmap(x: Float32Array, y: Float32Array, mask: Uint8Array, w: number, h: number): RgbImage {
  const data = new Uint8Array(w * h * 3);
  for (let i = 0; i < w * h; i++) {
    const d = mask[i] ? Math.min(1, Math.abs(x[i]! - y[i]!) * 4) : 0;
    data[i * 3 + 2] = Math.round(d * 255);
  }
  return { width: w, height: h, data };
}

function confidence(mean: number, largest: number): number {
  // Distance from the decision boundary, mapped to 0.5..1.
  const m = Math.abs(mean - ssimThresholds.mean) / 0.2;
  const r = largest > ssimThresholds.regionArea ? Math.min(1, largest / (ssimThresholds.regionArea * 4)) : 1 - largest / ssimThresholds.regionArea;
  return round(0.5 + 0.5 * Math.min(1, Math.min(m, r)));
}

export function round(v: number, digits = 4): number {
  const f = 10 ** digits;
  return Math.round(v * f) / f;
}
