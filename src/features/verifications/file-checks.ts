import { inspectJpegStream, jpegStructureError } from '../../analysis/image/jpeg-structure.js';
import { describeFile, detectRawFormat, detectUnsupportedRaw, rawFormatName, supportedRawFormats, unsupportedRawError } from '../../analysis/raw/index.js';
import type { UploadedFile } from '../../core/blob-store.js';
import { FileError } from '../../core/errors.js';
import { detectImageFormat, mimeTypes, type ImageFormat } from '../../provenance/format.js';

const PAIR_IMAGE_FORMATS: ImageFormat[] = ['jpeg', 'heif'];
const IMAGE_ONLY_FORMATS: ImageFormat[] = ['jpeg', 'png', 'webp', 'heif', 'avif', 'tiff', 'gif'];
const FORMAT_NAMES: Record<ImageFormat, string> = { jpeg: 'JPEG', png: 'PNG', webp: 'WebP', heif: 'HEIF/HEIC', avif: 'AVIF', tiff: 'TIFF', gif: 'GIF', dng: 'DNG' };

/** The image formats taken with a RAW (`pair`) or alone, in words: "JPEG or HEIF/HEIC". */
export function acceptedImageFormats(pair: boolean): string {
  const names = (pair ? PAIR_IMAGE_FORMATS : IMAGE_ONLY_FORMATS).map((format) => FORMAT_NAMES[format]);
  return names.length > 1 ? `${names.slice(0, -1).join(', ')} or ${names.at(-1)}` : (names[0] ?? '');
}

/**
 * Content decides the format, never the name; a clear 400 says what the file actually is. A
 * JPEG's structure is checked as the CLI's pipeline checks it (analysis/image/jpeg-structure):
 * the staged file is streamed up to the end-of-image marker closing the image, never loaded
 * whole; data after that marker is accepted (its length is recorded with the analysis).
 */
export async function checkImage(file: UploadedFile, pair: boolean): Promise<{ format: ImageFormat; contentType: string }> {
  if (file.staged.size === 0) throw new FileError('UNSUPPORTED_FORMAT', 'The image file is empty (0 bytes).', { suggestion: 'Attach the image file itself.' });
  // Most RAW formats are TIFF containers: look for a RAW first so a CR2 is not taken for a TIFF.
  const detected = detectRawFormat(file.staged.head);
  const raw = detected ? rawFormatName(detected) : detectUnsupportedRaw(file.staged.head);
  const format = raw ? undefined : detectImageFormat(file.staged.head);
  const allowed = pair ? PAIR_IMAGE_FORMATS : IMAGE_ONLY_FORMATS;
  if (!format || !allowed.includes(format)) {
    const actual = raw ? `a camera RAW (${raw})` : format ? format.toUpperCase() : describeFile(file.staged.head);
    throw new FileError('UNSUPPORTED_FORMAT', `The image part is ${actual}, which is not accepted ${pair ? 'with a RAW' : 'for image-only verification'}.`, {
      suggestion: pair ? `With a RAW, send the ${acceptedImageFormats(true)} rendering in "image" and the RAW in "raw".` : `Send a ${acceptedImageFormats(false)}.`,
    });
  }
  if (format === 'jpeg') {
    const structure = await inspectJpegStream(file.staged.stream(), file.staged.size);
    if (!structure.ok) throw jpegStructureError(structure);
  }
  return { format, contentType: mimeTypes[format] };
}

export function checkRaw(file: UploadedFile): string {
  if (file.staged.size === 0) throw new FileError('UNSUPPORTED_FORMAT', 'The RAW file is empty (0 bytes).', { suggestion: 'Attach the camera RAW file itself.' });
  const format = detectRawFormat(file.staged.head);
  if (!format) {
    const unsupported = unsupportedRawError(file.staged.head);
    if (unsupported) throw unsupported;
    throw new FileError('UNSUPPORTED_FORMAT', `The raw part is ${describeFile(file.staged.head)}, not a camera RAW.`, {
      suggestion: `Send a camera RAW file in "raw" (supported: ${supportedRawFormats}).`,
    });
  }
  return format;
}
