/**
 * The PSD's layer pixels, each an RGBA buffer of the canvas's size (the photo's, orientation
 * applied): the photo, the RAW rendition warped into the photo's geometry, the heatmap scaled to
 * the canvas. One buffer per layer and no intermediate full-size copies: a 24 MP canvas is 96 MB
 * per layer, and the export's memory budget (1.5 GiB for a 24 MP pair) is mostly these.
 */
import sharp from 'sharp';
import type { Affine } from '../../analysis/image/affine.js';
import { detectPairImageFormat, loadPairImage, maxImagePixels } from '../../analysis/image/load.js';
import { samplingLevel, warpBilinear } from '../../analysis/image/warp.js';
import type { RgbImage } from '../../analysis/types.js';

/** ag-psd's PixelData: interleaved RGBA, row-major. */
export interface Rgba {
  width: number;
  height: number;
  data: Uint8ClampedArray;
}

/**
 * The photo as the analysis decodes it (src/analysis/image/load.ts: EXIF orientation applied,
 * sRGB), opaque RGBA. A JPEG goes straight to RGBA through sharp; a HEIC through the analysis's
 * own decoder (libheif), then gains its alpha.
 */
export async function photoPixels(bytes: Uint8Array): Promise<Rgba> {
  if (detectPairImageFormat(bytes) === 'jpeg') {
    const { data, info } = await sharp(bytes, { limitInputPixels: maxImagePixels, failOn: 'truncated' })
      .rotate()
      .toColourspace('srgb')
      .removeAlpha()
      .ensureAlpha(1)
      .raw()
      .toBuffer({ resolveWithObject: true });
    return { width: info.width, height: info.height, data: new Uint8ClampedArray(data.buffer, data.byteOffset, data.byteLength) };
  }
  return opaque((await loadPairImage(bytes)).image);
}

function opaque(rgb: RgbImage): Rgba {
  const n = rgb.width * rgb.height;
  const out = new Uint8ClampedArray(n * 4);
  const src = rgb.data;
  for (let i = 0, j = 0; i < n; i++, j += 3) {
    const o = i * 4;
    out[o] = src[j]!;
    out[o + 1] = src[j + 1]!;
    out[o + 2] = src[j + 2]!;
    out[o + 3] = 255;
  }
  return { width: rgb.width, height: rgb.height, data: out };
}

/**
 * The RAW reference warped into the photo's full-resolution grid through the registration the
 * analysis recorded (`imageToReference`: photo pixel → reference pixel), by the warp
 * (analysis/image/warp.ts) that analysis/compare/frame.ts warps it into the working grid with.
 * Transparent where the reference does not cover the photo, so the photo shows through there.
 * A reference much larger than the photo is first resized to about one reference pixel per
 * photo pixel (sampling it sparsely would alias its noise), as the frame does.
 */
export function registeredRendition(reference: RgbImage, imageToReference: Affine, width: number, height: number): Rgba {
  const { level, toLevel } = samplingLevel(reference, imageToReference);
  const out = new Uint8ClampedArray(width * height * 4); // transparent where the reference does not reach
  warpBilinear(level, toLevel, width, height, out, 4);
  return { width, height, data: out };
}

/** The stored SSIM heatmap (a PNG in the analysis's working grid, same aspect as the photo) scaled to the canvas, opaque. */
export async function heatmapPixels(png: Uint8Array, width: number, height: number): Promise<Rgba> {
  const { data, info } = await sharp(png).resize(width, height, { fit: 'fill', kernel: 'cubic' }).removeAlpha().ensureAlpha(1).raw().toBuffer({ resolveWithObject: true });
  return { width: info.width, height: info.height, data: new Uint8ClampedArray(data.buffer, data.byteOffset, data.byteLength) };
}
