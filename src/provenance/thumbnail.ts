/**
 * Thumbnails (JPEG, longest side 512) for every accepted image format. sharp decodes all of
 * them except HEIC/HEIF (its libvips has no HEVC decoder), which goes through libheif-js
 * (WebAssembly) to raw RGBA first: the thumbnail item the file carries when it has one (a
 * phone's 320x240 preview, never enlarged), the full image only when it has none (D-051).
 */
import sharp from 'sharp';
import { FileError } from '../core/errors.js';
import { detectImageFormat } from './format.js';
import { decodeHeifImage } from './heif.js';

export const THUMBNAIL_MAX_SIDE = 512;
/** Refuse decompression bombs before decoding (about 100 MP). */
const PIXEL_LIMIT = 100_000_000;

export async function makeThumbnail(bytes: Uint8Array): Promise<Uint8Array> {
  const format = detectImageFormat(bytes);
  if (!format) throw new FileError('UNSUPPORTED_FORMAT', 'The file is not an image format the service accepts.');
  try {
    const input =
      format === 'heif'
        ? heifInput(bytes)
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

function heifInput(bytes: Uint8Array): ReturnType<typeof sharp> {
  const { data, width, height } = decodeHeifImage(bytes, { preferThumbnail: true, maxPixels: PIXEL_LIMIT });
  return sharp(Buffer.from(data.buffer, data.byteOffset, data.byteLength), { raw: { width, height, channels: 4 } });
}
