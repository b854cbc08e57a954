/**
 * Multi-frame composites (grading rule 2): the RAW's frame covers only part of the image and the
 * uncovered part holds real, textured content (stitched panorama, exposure blend, focus stack).
 * An export rotated without cropping also leaves uncovered corners, but those are flat fill.
 */
import { round } from './ssim.js';
import type { ComparisonFrame } from './frame.js';
import { lumaArray } from './tone.js';

export const compositeThresholds = {
  /** Below this coverage the image extends beyond the RAW's frame. */
  maxCoverage: 0.9,
  /** Mean absolute high-pass luminance of the uncovered part above which it is content, not fill. */
  minTexture: 0.003,
} as const;

export function detectComposite(frame: ComparisonFrame): { multiFrame: boolean; coverage: number; uncovered_texture: number } {
  const { width: w, height: h } = frame.image;
  const y = lumaArray(frame.image.data);
  let sum = 0;
  let n = 0;
  for (let yy = 1; yy < h - 1; yy++) {
    for (let x = 1; x < w - 1; x++) {
      const i = yy * w + x;
      // Stay clear of the frame edge, where the seam itself is texture.
      if (frame.mask[i] || frame.mask[i - 2] || frame.mask[i + 2] || frame.mask[i - 2 * w] || frame.mask[i + 2 * w]) continue;
      sum += Math.abs(4 * y[i]! - y[i - 1]! - y[i + 1]! - y[i - w]! - y[i + w]!) / 4;
      n++;
    }
  }
  const texture = n ? sum / n : 0;
  const multiFrame = frame.coverage < compositeThresholds.maxCoverage && n > 0.02 * w * h && texture >= compositeThresholds.minTexture;
  return { multiFrame, coverage: round(frame.coverage), uncovered_texture: round(texture) };
}
