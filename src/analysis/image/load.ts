/**
 * Decoding the image side of a pair (JPEG or HEIF/HEIC) into display-oriented sRGB pixels.
 * sharp for JPEG (EXIF orientation applied); libheif-js for HEIC, whose HEVC payload sharp's
 * prebuilt libvips cannot decode (libheif applies the irot/imir transforms itself).
 */
import { createRequire } from 'node:module';
import sharp from 'sharp';
import { FileError } from '../../core/errors.js';
import type { CameraMetadata, RgbImage } from '../types.js';
import { checkJpegStructure } from './jpeg-structure.js';
import { readCameraMetadata } from './metadata.js';

/** Untrusted input: refuse decompression bombs (100 MP covers every current camera). */
export const maxImagePixels = 100_000_000;

export type PairImageFormat = 'jpeg' | 'heif';

export interface LoadedImage {
  format: PairImageFormat;
  image: RgbImage;
  metadata: CameraMetadata;
  /** JPEG only: bytes after the end-of-image marker that closes the image (jpeg-structure.ts). */
  trailingBytes?: number;
}

export function detectPairImageFormat(bytes: Uint8Array): PairImageFormat | null {
  if (bytes.length > 3 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return 'jpeg';
  if (bytes.length > 12) {
    const box = String.fromCharCode(...bytes.subarray(4, 8));
    const brand = String.fromCharCode(...bytes.subarray(8, 12));
    if (box === 'ftyp' && /^(heic|heix|heim|heis|hevc|hevx|mif1|msf1)$/.test(brand)) return 'heif';
  }
  return null;
}

export async function loadPairImage(bytes: Uint8Array): Promise<LoadedImage> {
  const format = detectPairImageFormat(bytes);
  if (!format) {
    throw new FileError('UNSUPPORTED_FORMAT', 'The image of a RAW pair must be a JPEG or HEIF/HEIC file.', {
      suggestion: 'Submit the JPEG or HEIC exported from the RAW.',
    });
  }
  // The same structure check as the service's upload check: a truncated JPEG is CORRUPT_FILE
  // before any decoding, trailing data after its end-of-image marker is accepted and counted.
  const trailingBytes = format === 'jpeg' ? checkJpegStructure(bytes) : undefined;
  const [image, metadata] = await Promise.all([
    format === 'jpeg' ? decodeJpeg(bytes) : decodeHeif(bytes),
    readCameraMetadata(bytes),
  ]);
  return { format, image, metadata, ...(trailingBytes === undefined ? {} : { trailingBytes }) };
}

async function decodeJpeg(bytes: Uint8Array): Promise<RgbImage> {
  try {
    const { data, info } = await sharp(bytes, { limitInputPixels: maxImagePixels, failOn: 'truncated' })
      .rotate() // EXIF orientation
      .toColourspace('srgb')
      .removeAlpha()
      .raw()
      .toBuffer({ resolveWithObject: true });
    if (info.channels !== 3) throw new Error(`unexpected ${info.channels} channels`);
    return { width: info.width, height: info.height, data: new Uint8Array(data.buffer, data.byteOffset, data.byteLength) };
  } catch (cause) {
    throw new FileError('CORRUPT_FILE', `The JPEG could not be decoded: ${(cause as Error).message}`, {
      suggestion: 'Submit the complete, unmodified JPEG file.',
      cause,
    });
  }
}

interface HeifImage {
  get_width(): number;
  get_height(): number;
  display(target: { data: Uint8ClampedArray; width: number; height: number }, done: (r: unknown) => void): void;
  free?(): void;
}
interface HeifModule {
  HeifDecoder: new () => { decode(bytes: Uint8Array): HeifImage[] };
}

let heif: HeifModule | undefined;
function heifModule(): HeifModule {
  // The wasm bundle embeds its binary: no file lookup at runtime. Loaded only when a HEIC arrives.
  heif ??= createRequire(import.meta.url)('libheif-js/wasm-bundle') as HeifModule;
  return heif;
}

async function decodeHeif(bytes: Uint8Array): Promise<RgbImage> {
  let images: HeifImage[];
  try {
    images = new (heifModule().HeifDecoder)().decode(bytes);
  } catch (cause) {
    throw new FileError('CORRUPT_FILE', 'The HEIF/HEIC file could not be decoded.', { cause });
  }
  const primary = images[0];
  if (!primary) throw new FileError('CORRUPT_FILE', 'The HEIF/HEIC file holds no decodable image.');
  try {
    const width = primary.get_width();
    const height = primary.get_height();
    if (width * height > maxImagePixels) {
      throw new FileError('UNPROCESSABLE_FILE', `The image has ${width}x${height} pixels, more than the ${maxImagePixels} allowed.`);
    }
    const rgba = new Uint8ClampedArray(width * height * 4);
    const ok = await new Promise<boolean>((resolve) => primary.display({ data: rgba, width, height }, (r) => resolve(!!r)));
    if (!ok) throw new FileError('CORRUPT_FILE', 'The HEIF/HEIC image data could not be decoded.');
    const rgb = new Uint8Array(width * height * 3);
    for (let i = 0, j = 0; j < rgb.length; i += 4, j += 3) {
      rgb[j] = rgba[i]!;
      rgb[j + 1] = rgba[i + 1]!;
      rgb[j + 2] = rgba[i + 2]!;
    }
    return { width, height, data: rgb };
  } finally {
    for (const im of images) im.free?.();
  }
}
