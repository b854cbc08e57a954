/**
 * HEIF/HEIC to RGBA through libheif's C API in libheif-js's WebAssembly build. The package's
 * `HeifDecoder` wrapper only reaches top-level images; its C exports also reach the thumbnail
 * items (`thmb` references) that phones store beside the primary image. A 12 MP iPhone HEIC
 * is a grid of 48 HEVC tiles (about 5 s to decode here); its 320x240 thumbnail decodes in
 * ~50 ms, which is all a thumbnail rendition needs (D-051).
 */
import { createRequire } from 'node:module';
import { FileError } from '../core/errors.js';

/** The C functions used here; pointers are offsets into the module's heap. */
interface LibheifC {
  HEAPU8: Uint8Array;
  HEAP32: Int32Array;
  HEAPU32: Uint32Array;
  _malloc(size: number): number;
  _free(pointer: number): void;
  _heif_context_alloc(): number;
  _heif_context_free(context: number): void;
  _heif_context_read_from_memory(error: number, context: number, data: number, size: number, reserved: number): void;
  _heif_context_get_primary_image_handle(error: number, context: number, handleOut: number): void;
  _heif_image_handle_get_width(handle: number): number;
  _heif_image_handle_get_height(handle: number): number;
  _heif_image_handle_get_number_of_thumbnails(handle: number): number;
  _heif_image_handle_get_list_of_thumbnail_IDs(handle: number, idsOut: number, count: number): number;
  _heif_image_handle_get_thumbnail(error: number, handle: number, id: number, handleOut: number): void;
  _heif_image_handle_release(handle: number): void;
  _heif_decode_image(error: number, handle: number, imageOut: number, colorspace: number, chroma: number, options: number): void;
  _heif_image_get_width(image: number, channel: number): number;
  _heif_image_get_height(image: number, channel: number): number;
  _heif_image_get_plane_readonly2(image: number, channel: number, strideOut: number): number;
  _heif_image_release(image: number): void;
}

// libheif's enum values (heif_image.h): stable parts of its ABI.
const COLORSPACE_RGB = 1;
const CHROMA_INTERLEAVED_RGBA = 11;
const CHANNEL_INTERLEAVED = 10;
/** struct heif_error { int code; int subcode; const char* message; } */
const ERROR_STRUCT_BYTES = 12;

let module: LibheifC | undefined;
// The wasm bundle embeds its binary (no file lookup); loaded only when a HEIF arrives. The same
// instance serves analysis/image/load.ts through the require cache.
const libheif = (): LibheifC => (module ??= createRequire(import.meta.url)('libheif-js/wasm-bundle') as LibheifC);

export interface RgbaImage {
  data: Uint8ClampedArray;
  width: number;
  height: number;
}

export interface HeifDecodeOptions {
  /** Decode the largest thumbnail item of the primary image when it has one. */
  preferThumbnail?: boolean;
  /** Refuse a primary image with more pixels than this before decoding it. */
  maxPixels: number;
}

export interface DecodedHeif extends RgbaImage {
  /** Which item was decoded. */
  source: 'thumbnail' | 'primary';
  primaryWidth: number;
  primaryHeight: number;
}

function errorMessage(c: LibheifC, error: number): string {
  const pointer = c.HEAPU32[(error >> 2) + 2]!;
  if (!pointer) return `libheif error ${c.HEAP32[error >> 2]}`;
  const heap = c.HEAPU8;
  let end = pointer;
  while (heap[end] !== 0 && end - pointer < 500) end++;
  return Buffer.from(heap.subarray(pointer, end)).toString('utf8');
}

/** Throws CORRUPT_FILE when the heif_error at `error` is not heif_error_Ok. */
function check(c: LibheifC, error: number, what: string): void {
  if (c.HEAP32[error >> 2] !== 0) {
    throw new FileError('CORRUPT_FILE', `The HEIF file could not be decoded (${what}: ${errorMessage(c, error)}).`, {
      suggestion: 'Upload a complete, uncorrupted image file.',
    });
  }
}

/** The thumbnail with the longest side, or undefined when the image carries none. */
function largestThumbnail(c: LibheifC, primary: number, error: number, scratch: number): number | undefined {
  const count = c._heif_image_handle_get_number_of_thumbnails(primary);
  if (count <= 0) return undefined;
  const ids = c._malloc(4 * count);
  let best: { handle: number; side: number } | undefined;
  try {
    const listed = c._heif_image_handle_get_list_of_thumbnail_IDs(primary, ids, count);
    for (let i = 0; i < listed; i++) {
      c._heif_image_handle_get_thumbnail(error, primary, c.HEAPU32[(ids >> 2) + i]!, scratch);
      if (c.HEAP32[error >> 2] !== 0) continue; // an unusable thumbnail: the primary still is
      const handle = c.HEAPU32[scratch >> 2]!;
      const side = Math.max(c._heif_image_handle_get_width(handle), c._heif_image_handle_get_height(handle));
      if (!best || side > best.side) {
        if (best) c._heif_image_handle_release(best.handle);
        best = { handle, side };
      } else c._heif_image_handle_release(handle);
    }
  } finally {
    c._free(ids);
  }
  return best?.handle;
}

/** Decodes `handle` (transformations irot/imir/clap applied, as libheif does by default) to RGBA. */
function decodeHandle(c: LibheifC, handle: number, error: number, scratch: number): RgbaImage {
  c._heif_decode_image(error, handle, scratch, COLORSPACE_RGB, CHROMA_INTERLEAVED_RGBA, 0);
  check(c, error, 'decoding the image');
  const image = c.HEAPU32[scratch >> 2]!;
  try {
    const width = c._heif_image_get_width(image, CHANNEL_INTERLEAVED);
    const height = c._heif_image_get_height(image, CHANNEL_INTERLEAVED);
    const plane = c._heif_image_get_plane_readonly2(image, CHANNEL_INTERLEAVED, scratch);
    if (!plane || width <= 0 || height <= 0) throw new FileError('CORRUPT_FILE', 'The HEIF image decoded to no pixels.');
    const stride = c.HEAPU32[scratch >> 2]!;
    const data = new Uint8ClampedArray(width * height * 4);
    // Read the heap after decoding: it may have grown (and been replaced) meanwhile.
    const heap = c.HEAPU8;
    for (let y = 0; y < height; y++) data.set(heap.subarray(plane + y * stride, plane + y * stride + width * 4), y * width * 4);
    return { data, width, height };
  } finally {
    c._heif_image_release(image);
  }
}

export function decodeHeifImage(bytes: Uint8Array, options: HeifDecodeOptions): DecodedHeif {
  const c = libheif();
  const error = c._malloc(ERROR_STRUCT_BYTES);
  const scratch = c._malloc(8);
  const context = c._heif_context_alloc();
  let primary = 0;
  let thumbnail: number | undefined;
  try {
    const input = c._malloc(bytes.length);
    try {
      c.HEAPU8.set(bytes, input);
      // read_from_memory copies the bytes into the context: the input can go at once.
      c._heif_context_read_from_memory(error, context, input, bytes.length, 0);
    } finally {
      c._free(input);
    }
    check(c, error, 'reading the file');
    c._heif_context_get_primary_image_handle(error, context, scratch);
    check(c, error, 'finding the primary image');
    primary = c.HEAPU32[scratch >> 2]!;
    const primaryWidth = c._heif_image_handle_get_width(primary);
    const primaryHeight = c._heif_image_handle_get_height(primary);
    thumbnail = options.preferThumbnail ? largestThumbnail(c, primary, error, scratch) : undefined;
    if (thumbnail !== undefined) {
      try {
        return { ...decodeHandle(c, thumbnail, error, scratch), source: 'thumbnail', primaryWidth, primaryHeight };
      } catch {
        // A damaged thumbnail item says nothing about the image: fall back to the primary.
      }
    }
    if (primaryWidth * primaryHeight > options.maxPixels) {
      throw new FileError('UNPROCESSABLE_FILE', `The image is too large (${primaryWidth}x${primaryHeight}).`);
    }
    return { ...decodeHandle(c, primary, error, scratch), source: 'primary', primaryWidth, primaryHeight };
  } finally {
    if (thumbnail !== undefined) c._heif_image_handle_release(thumbnail);
    if (primary) c._heif_image_handle_release(primary);
    c._heif_context_free(context);
    c._free(scratch);
    c._free(error);
  }
}
