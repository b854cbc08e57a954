/**
 * A fast, faithful reference rendering of the sensor data, for comparison with the camera's or
 * an editor's JPEG after registration. Half-size "superpixel" demosaic: each 2x2 CFA quad gives
 * one RGB pixel (R, mean of the two G, B), so no colour is interpolated and no edge artefacts
 * are invented; the result has half the sensor resolution, which exceeds what the comparisons
 * use. Then: black subtraction, as-shot white balance, highlight clip, camera->sRGB matrix,
 * exposure normalisation like LibRaw's auto-bright, sRGB transfer curve, EXIF orientation,
 * optional downscale.
 */
import sharp from 'sharp';
import type { DecodedRaw, RgbImage } from '../types.js';

export interface RenderOptions {
  /** Longest side of the output, in pixels; the image is only ever shrunk. */
  maxSide?: number;
  /**
   * Scale so that 1% of pixels clip, as LibRaw/dcraw do by default (auto-bright): camera JPEGs
   * are rendered brighter than linear sensor data. Default true.
   */
  autoBright?: boolean;
}

/** Fraction of pixels allowed to clip under auto-bright (LibRaw's auto_bright_thr). */
const autoBrightClipFraction = 0.01;
const gammaLutSize = 1 << 14;

let gammaLut: Uint8Array | undefined;

/** Linear 0..1 (index / (size-1)) to 8-bit sRGB. */
function srgbLut(): Uint8Array {
  if (gammaLut) return gammaLut;
  gammaLut = new Uint8Array(gammaLutSize);
  for (let i = 0; i < gammaLutSize; i++) {
    const v = i / (gammaLutSize - 1);
    const s = v <= 0.0031308 ? 12.92 * v : 1.055 * Math.pow(v, 1 / 2.4) - 0.055;
    gammaLut[i] = Math.round(Math.min(1, Math.max(0, s)) * 255);
  }
  return gammaLut;
}

/** Linear camera RGB (0..1 after black/white scaling and white balance) at half or full size. */
interface LinearImage {
  width: number;
  height: number;
  data: Float32Array;
}

function channelOf(letter: string | undefined): 0 | 1 | 2 {
  if (letter === 'R') return 0;
  if (letter === 'B') return 2;
  return 1;
}

function balance(raw: DecodedRaw): [number, number, number] {
  const [r, g, b] = raw.asShotWb;
  // Normalise so the weakest multiplier is 1: a channel that saturates stays at the clip point.
  const lowest = Math.min(r, g, b);
  return [r / lowest, g / lowest, b / lowest];
}

function superpixel(raw: DecodedRaw): LinearImage {
  const width = raw.width >> 1;
  const height = raw.height >> 1;
  const data = new Float32Array(width * height * 3);
  const pattern = [...raw.cfaPattern].map(channelOf);
  const blacks = raw.channelBlack ?? [raw.blackLevel, raw.blackLevel, raw.blackLevel, raw.blackLevel];
  const wb = balance(raw);
  // Per CFA position: the factor turning (value - black) into white-balanced 0..1.
  const gain = pattern.map((c, i) => wb[c] / Math.max(1, raw.whiteLevel - blacks[i]!));
  const greens = pattern.filter((c) => c === 1).length || 1;
  // Weight of each quad position in each output channel: branch-free inner loop.
  const weight = (channel: number): number[] =>
    pattern.map((c, i) => (c === channel ? gain[i]! / (channel === 1 ? greens : 1) : 0));
  const [r0, r1, r2, r3] = weight(0) as [number, number, number, number];
  const [g0, g1, g2, g3] = weight(1) as [number, number, number, number];
  const [u0, u1, u2, u3] = weight(2) as [number, number, number, number];
  const [b0, b1, b2, b3] = blacks;
  const cfa = raw.cfa;
  const stride = raw.width;
  for (let y = 0; y < height; y++) {
    const row0 = 2 * y * stride;
    const row1 = row0 + stride;
    let o = y * width * 3;
    for (let x = 0; x < width; x++, o += 3) {
      const i = 2 * x;
      const v0 = Math.max(0, cfa[row0 + i]! - b0);
      const v1 = Math.max(0, cfa[row0 + i + 1]! - b1);
      const v2 = Math.max(0, cfa[row1 + i]! - b2);
      const v3 = Math.max(0, cfa[row1 + i + 1]! - b3);
      data[o] = v0 * r0 + v1 * r1 + v2 * r2 + v3 * r3;
      data[o + 1] = v0 * g0 + v1 * g1 + v2 * g2 + v3 * g3;
      data[o + 2] = v0 * u0 + v1 * u1 + v2 * u2 + v3 * u3;
    }
  }
  return { width, height, data };
}

function fromLinearRgb(raw: DecodedRaw, rgb: Uint16Array): LinearImage {
  const data = new Float32Array(rgb.length);
  const wb = balance(raw);
  const scale = 1 / Math.max(1, raw.whiteLevel - raw.blackLevel);
  for (let i = 0; i < rgb.length; i++) {
    data[i] = Math.max(0, rgb[i]! - raw.blackLevel) * scale * wb[i % 3]!;
  }
  return { width: raw.width, height: raw.height, data };
}

/** Clip highlights, apply the colour matrix, find the auto-bright scale; returns that scale. */
function toSrgbLinear(image: LinearImage, matrix: number[] | undefined, autoBright: boolean): number {
  const m = matrix ?? [1, 0, 0, 0, 1, 0, 0, 0, 1];
  const [m0, m1, m2, m3, m4, m5, m6, m7, m8] = m as [number, number, number, number, number, number, number, number, number];
  const d = image.data;
  const bins = 4096;
  const histogram = new Uint32Array(bins);
  for (let o = 0; o < d.length; o += 3) {
    // Clip after white balance so saturated areas stay neutral instead of turning pink.
    const r = Math.min(1, d[o]!);
    const g = Math.min(1, d[o + 1]!);
    const b = Math.min(1, d[o + 2]!);
    const R = m0 * r + m1 * g + m2 * b;
    const G = m3 * r + m4 * g + m5 * b;
    const B = m6 * r + m7 * g + m8 * b;
    d[o] = R;
    d[o + 1] = G;
    d[o + 2] = B;
    const peak = Math.max(R, G, B);
    histogram[Math.min(bins - 1, Math.max(0, Math.floor(peak * (bins - 1))))]!++;
  }
  if (!autoBright) return 1;
  const allowed = (d.length / 3) * autoBrightClipFraction;
  let above = 0;
  let level = bins - 1;
  for (; level > 0; level--) {
    above += histogram[level]!;
    if (above > allowed) break;
  }
  return level > 0 ? (bins - 1) / level : 1;
}

function encode(image: LinearImage, scale: number): RgbImage {
  const lut = srgbLut();
  const top = gammaLutSize - 1;
  const toIndex = scale * top;
  const d = image.data;
  const out = new Uint8Array(d.length);
  for (let i = 0; i < d.length; i++) {
    const v = d[i]! * toIndex;
    // `| 0` truncation after +0.5 rounds non-negative values, several times faster than Math.round.
    out[i] = lut[v <= 0 ? 0 : v >= top ? top : (v + 0.5) | 0]!;
  }
  return { width: image.width, height: image.height, data: out };
}

/** Applies EXIF orientation 1..8 (the transform a viewer applies to display the image upright). */
export function orient(image: RgbImage, orientation: number): RgbImage {
  if (orientation <= 1 || orientation > 8) return image;
  const { width: w, height: h, data } = image;
  const swap = orientation >= 5;
  const ow = swap ? h : w;
  const oh = swap ? w : h;
  const out = new Uint8Array(data.length);
  for (let y = 0; y < oh; y++) {
    for (let x = 0; x < ow; x++) {
      let sx: number;
      let sy: number;
      switch (orientation) {
        case 2: sx = w - 1 - x; sy = y; break;
        case 3: sx = w - 1 - x; sy = h - 1 - y; break;
        case 4: sx = x; sy = h - 1 - y; break;
        case 5: sx = y; sy = x; break;
        case 6: sx = y; sy = h - 1 - x; break;
        case 7: sx = w - 1 - y; sy = h - 1 - x; break;
        default: sx = w - 1 - y; sy = x; break; // 8
      }
      const s = (sy * w + sx) * 3;
      const o = (y * ow + x) * 3;
      out[o] = data[s]!;
      out[o + 1] = data[s + 1]!;
      out[o + 2] = data[s + 2]!;
    }
  }
  return { width: ow, height: oh, data: out };
}

async function shrink(image: RgbImage, maxSide: number): Promise<RgbImage> {
  const longest = Math.max(image.width, image.height);
  if (longest <= maxSide) return image;
  const scale = maxSide / longest;
  const width = Math.max(1, Math.round(image.width * scale));
  const height = Math.max(1, Math.round(image.height * scale));
  const { data, info } = await sharp(image.data, { raw: { width: image.width, height: image.height, channels: 3 } })
    .resize(width, height, { kernel: 'lanczos3', fit: 'fill' })
    .raw()
    .toBuffer({ resolveWithObject: true });
  return { width: info.width, height: info.height, data: new Uint8Array(data.buffer, data.byteOffset, data.byteLength) };
}

export async function renderReference(raw: DecodedRaw, options: RenderOptions = {}): Promise<RgbImage> {
  const { maxSide, autoBright = true } = options;
  if (maxSide !== undefined && (!Number.isInteger(maxSide) || maxSide < 16)) {
    throw new RangeError(`renderReference maxSide must be an integer >= 16, got ${String(maxSide)}`);
  }
  const linear = raw.linearRgb ? fromLinearRgb(raw, raw.linearRgb) : superpixel(raw);
  const scale = toSrgbLinear(linear, raw.camToSrgb, autoBright);
  const upright = orient(encode(linear, scale), raw.orientation);
  return maxSide === undefined ? upright : shrink(upright, maxSide);
}
