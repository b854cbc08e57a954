/**
 * The comparison frame: the image (JPEG) at a working resolution and the RAW reference warped
 * into the same pixel grid through the registration, with a mask of where the reference exists.
 * Every pixel comparison (SSIM, hash, histogram, processing chain) runs on this frame.
 */
import { type Affine, compose, gridScale } from '../image/affine.js';
import { downscaleRgb, fitSize, resizeRgb } from '../image/ops.js';
import type { RgbImage } from '../types.js';

export interface ComparisonFrame {
  /** The image at working resolution. */
  image: RgbImage;
  /** The reference warped into the image's working grid (black where mask = 0). */
  reference: RgbImage;
  /** 1 where the reference covers the pixel. */
  mask: Uint8Array;
  /** Fraction of image pixels covered by the reference. */
  coverage: number;
  /** Working-grid pixel → full-resolution image pixel (multiply). */
  toImageScale: number;
}

/**
 * @param imageToReference map from full-resolution image pixels to full-resolution reference
 *   pixels (from the registration).
 */
export function buildComparisonFrame(
  referenceFull: RgbImage,
  imageFull: RgbImage,
  imageToReference: Affine,
  workSide: number,
): ComparisonFrame {
  const image = downscaleRgb(imageFull, workSide);
  const workToImage = gridScale(image.width, image.height, imageFull.width, imageFull.height);
  const workToRefFull = compose(imageToReference, workToImage);
  // Sample a reference level with about one reference pixel per working pixel: sampling the
  // full reference at a coarser step would alias its noise and fine texture.
  const step = Math.sqrt(Math.abs(workToRefFull[0] * workToRefFull[4] - workToRefFull[1] * workToRefFull[3]));
  let level = referenceFull;
  if (step > 1.25) {
    const s = fitSize(referenceFull.width, referenceFull.height, Math.round(Math.max(referenceFull.width, referenceFull.height) / step));
    level = resizeRgb(referenceFull, s.width, s.height);
  }
  const toLevel = compose(gridScale(referenceFull.width, referenceFull.height, level.width, level.height), workToRefFull);
  const { warped, mask, coverage } = warpRgb(level, toLevel, image.width, image.height);
  return { image, reference: warped, mask, coverage, toImageScale: imageFull.width / image.width };
}

/** Bilinear warp of an RGB image: output pixel p takes src(m(p)). */
export function warpRgb(
  src: RgbImage,
  m: Affine,
  width: number,
  height: number,
): { warped: RgbImage; mask: Uint8Array; coverage: number } {
  const out = new Uint8Array(width * height * 3);
  const mask = new Uint8Array(width * height);
  const sw = src.width;
  const sh = src.height;
  const d = src.data;
  let covered = 0;
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const u = m[0] * x + m[1] * y + m[2];
      const v = m[3] * x + m[4] * y + m[5];
      if (u < -0.5 || v < -0.5 || u > sw - 0.5 || v > sh - 0.5) continue;
      const uc = Math.min(sw - 1, Math.max(0, u));
      const vc = Math.min(sh - 1, Math.max(0, v));
      const x0 = Math.floor(uc);
      const y0 = Math.floor(vc);
      const x1 = Math.min(sw - 1, x0 + 1);
      const y1 = Math.min(sh - 1, y0 + 1);
      const fx = uc - x0;
      const fy = vc - y0;
      const o = (y * width + x) * 3;
      for (let c = 0; c < 3; c++) {
        const a = d[(y0 * sw + x0) * 3 + c]!;
        const b = d[(y0 * sw + x1) * 3 + c]!;
        const e = d[(y1 * sw + x0) * 3 + c]!;
        const f = d[(y1 * sw + x1) * 3 + c]!;
        out[o + c] = Math.round(a + (b - a) * fx + (e - a) * fy + (a - b - e + f) * fx * fy);
      }
      mask[y * width + x] = 1;
      covered++;
    }
  }
  return { warped: { width, height, data: out }, mask, coverage: covered / (width * height) };
}
