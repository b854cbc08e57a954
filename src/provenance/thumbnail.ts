/**
 * Thumbnails (JPEG, longest side 512) for every accepted image format. sharp decodes all of
 * them except HEIC/HEIF (its libvips has no HEVC decoder), which goes through libheif-js
 * (WebAssembly) to raw RGBA first.
 */
import { createRequire } from 'node:module';
import sharp from 'sharp';
import { FileError } from '../core/errors.js';
import { detectImageFormat } from './format.js';

export const THUMBNAIL_MAX_SIDE = 512;
/** Refuse decompression bombs before decoding (about 100 MP). */
const PIXEL_LIMIT = 100_000_000;

interface HeifImage {
  get_width(): number;
  get_height(): number;
  display(target: { data: Uint8ClampedArray; width: number; height: number }, done: (result: unknown) => void): void;
  free(): void;
}
interface Libheif {
  HeifDecoder: new () => { decode(bytes: Uint8Array): HeifImage[] };
}

let libheif: Libheif | undefined;
const loadLibheif = (): Libheif =>
  (libheif ??= createRequire(import.meta.url)('libheif-js/wasm-bundle') as Libheif);

/** Decodes the primary image of a HEIF/HEIC file to RGBA. */
export async function decodeHeif(bytes: Uint8Array): Promise<{ data: Uint8ClampedArray; width: number; height: number }> {
  const images = new (loadLibheif().HeifDecoder)().decode(bytes);
  const image = images[0];
  if (!image) throw new FileError('CORRUPT_FILE', 'The HEIF file holds no decodable image.');
  try {
    const width = image.get_width();
    const height = image.get_height();
    if (width * height > PIXEL_LIMIT) throw new FileError('UNPROCESSABLE_FILE', `The image is too large (${width}x${height}).`);
    const target = { data: new Uint8ClampedArray(width * height * 4), width, height };
    await new Promise<void>((resolve, reject) =>
      image.display(target, (result) => (result ? resolve() : reject(new FileError('CORRUPT_FILE', 'The HEIF image could not be decoded.')))),
    );
    return target;
  } finally {
    for (const img of images) img.free();
  }
}

export async function makeThumbnail(bytes: Uint8Array): Promise<Uint8Array> {
  const format = detectImageFormat(bytes);
  if (!format) throw new FileError('UNSUPPORTED_FORMAT', 'The file is not an image format the service accepts.');
  try {
    const input =
      format === 'heif'
        ? await decodeHeif(bytes).then(({ data, width, height }) => sharp(Buffer.from(data.buffer), { raw: { width, height, channels: 4 } }))
        : sharp(bytes, { limitInputPixels: PIXEL_LIMIT, failOn: 'error', pages: 1 });
    const jpeg = await input
      .rotate() // apply EXIF orientation
      .resize(THUMBNAIL_MAX_SIDE, THUMBNAIL_MAX_SIDE, { fit: 'inside', withoutEnlargement: true })
      .flatten({ background: '#ffffff' })
      .jpeg({ quality: 82 })
      .toBuffer();
    return new Uint8Array(jpeg);
  } catch (error) {
    if (error instanceof FileError) throw error;
    throw new FileError('CORRUPT_FILE', `The image could not be decoded: ${error instanceof Error ? error.message : String(error)}`, {
      suggestion: 'Upload a complete, uncorrupted image file.',
      cause: error,
    });
  }
}
