/** Public API of the RAW side of the analysis engine. */
export { detectRawFormat, describeFile, detectUnsupportedRaw, rawFormatName, unsupportedRawError, supportedRawFormats } from './format-detect.js';
export { decodeRaw, type RawDecodeOutcome, type DecodeRawOptions } from './decode.js';
export {
  RawDecoderPool,
  configureRawDecoders,
  shutdownRawDecoders,
  type RawDecoderPoolOptions,
  type DecodeLimits,
} from './decoder-pool.js';
export { renderReference, type RenderOptions } from './render.js';
export { analyzeRawIntegrity } from './integrity.js';

import type { CameraMetadata, DecodedRaw } from '../types.js';

/** The camera facts read from the RAW (LibRaw + exifr), for the EXIF comparison. */
export function rawCameraMetadata(raw: DecodedRaw): CameraMetadata {
  return raw.metadata;
}
