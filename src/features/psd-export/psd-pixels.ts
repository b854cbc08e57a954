/**
 * The PSD's layer pixels, each an RGBA buffer of the canvas's size (the photo's, orientation
 * applied): the photo, the RAW rendition warped into the photo's geometry, the heatmap scaled to
 * the canvas. One buffer per layer and no intermediate full-size copies: a 24 MP canvas is 96 MB
 * per layer, and the export's memory budget (1.5 GiB for a 24 MP pair) is mostly these.
 */
import sharp from 'sharp';
import { type Affine, compose, gridScale } from '../../analysis/image/affine.js';
import { detectPairImageFormat, loadPairImage, maxImagePixels } from '../../analysis/image/load.js';
import { fitSize, resizeRgb } from '../../analysis/image/ops.js';
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
 * analysis recorded (`imageToReference`: photo pixel → reference pixel), bilinear, as
 * analysis/compare/frame.ts warps it into the working grid for the report page's flicker.
 * Transparent where the reference does not cover the photo, so the photo shows through there.
 * A reference much larger than the photo is first resized to about one reference pixel per
 * photo pixel (sampling it sparsely would alias its noise), as the frame does.
 */
export function registeredRendition(reference: RgbImage, imageToReference: Affine, width: number, height: number): Rgba {
  const step = Math.sqrt(Math.abs(imageToReference[0] * imageToReference[4] - imageToReference[1] * imageToReference[3]));
  let level = reference;
  if (step > 1.25) {
    const s = fitSize(reference.width, reference.height, Math.round(Math.max(reference.width, reference.height) / step));
    level = resizeRgb(reference, s.width, s.height);
  }
  const m = compose(gridScale(reference.width, reference.height, level.width, level.height), imageToReference);
  const out = new Uint8ClampedArray(width * height * 4);
  const sw = level.width;
  const sh = level.height;
  const d = level.data;
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const u = m[0] * x + m[1] * y + m[2];
      const v = m[3] * x + m[4] * y + m[5];
      if (u < -0.5 || v < -0.5 || u > sw - 0.5 || v > sh - 0.5) continue; // stays transparent
      const uc = Math.min(sw - 1, Math.max(0, u));
      const vc = Math.min(sh - 1, Math.max(0, v));
      const x0 = Math.floor(uc);
      const y0 = Math.floor(vc);
      const x1 = Math.min(sw - 1, x0 + 1);
      const y1 = Math.min(sh - 1, y0 + 1);
      const fx = uc - x0;
      const fy = vc - y0;
      const o = (y * width + x) * 4;
      const p00 = (y0 * sw + x0) * 3;
      const p01 = (y0 * sw + x1) * 3;
      const p10 = (y1 * sw + x0) * 3;
      const p11 = (y1 * sw + x1) * 3;
      for (let c = 0; c < 3; c++) {
        const a = d[p00 + c]!;
        const b = d[p01 + c]!;
        const e = d[p10 + c]!;
        const f = d[p11 + c]!;
        out[o + c] = a + (b - a) * fx + (e - a) * fy + (a - b - e + f) * fx * fy; // a clamped array rounds to nearest
      }
      out[o + 3] = 255;
    }
  }
  return { width, height, data: out };
}

/** The stored SSIM heatmap (a PNG in the analysis's working grid, same aspect as the photo) scaled to the canvas, opaque. */
export async function heatmapPixels(png: Uint8Array, width: number, height: number): Promise<Rgba> {
  const { data, info } = await sharp(png).resize(width, height, { fit: 'fill', kernel: 'cubic' }).removeAlpha().ensureAlpha(1).raw().toBuffer({ resolveWithObject: true });
  return { width: info.width, height: info.height, data: new Uint8ClampedArray(data.buffer, data.byteOffset, data.byteLength) };
}
