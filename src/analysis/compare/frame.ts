/**
 * The comparison frame: the image (JPEG) at a working resolution and the RAW reference warped
 * into the same pixel grid through the registration, with a mask of where the reference exists.
 * Every pixel comparison (SSIM, hash, histogram, processing chain) runs on this frame.
 */
import { type Affine, compose, gridScale } from '../image/affine.js';
import { downscaleRgb } from '../image/ops.js';
import { samplingLevel, warpBilinear } from '../image/warp.js';
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
  // A reference level with about one reference pixel per working pixel (image/warp.ts).
  const { level, toLevel } = samplingLevel(referenceFull, workToRefFull);
  const { warped, mask, coverage } = warpRgb(level, toLevel, image.width, image.height);
  return { image, reference: warped, mask, coverage, toImageScale: imageFull.width / image.width };
}

/** Bilinear warp of an RGB image: output pixel p takes src(m(p)) (image/warp.ts), black where the source does not reach. */
export function warpRgb(
  src: RgbImage,
  m: Affine,
  width: number,
  height: number,
): { warped: RgbImage; mask: Uint8Array; coverage: number } {
  const out = new Uint8Array(width * height * 3);
  const mask = new Uint8Array(width * height);
  const covered = warpBilinear(src, m, width, height, out, 3, mask);
  return { warped: { width, height, data: out }, mask, coverage: covered / (width * height) };
}
