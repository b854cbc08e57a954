/**
 * Camera facts from a file's EXIF (exifr). Dates stay as the camera wrote them
 * (reviveValues: false) so no time zone is invented; they are normalised to 'YYYY-MM-DDTHH:mm:ss'.
 */
import exifr from 'exifr';
import type { CameraMetadata } from '../types.js';

const options = {
  tiff: true,
  exif: true,
  gps: true,
  ifd1: false,
  xmp: false,
  icc: false,
  iptc: false,
  makerNote: false,
  reviveValues: false,
  translateValues: false,
  mergeOutput: true,
} as const;

/** Reads camera metadata; an unparseable or EXIF-less file gives an empty object, never throws. */
export async function readCameraMetadata(bytes: Uint8Array): Promise<CameraMetadata> {
  let tags: Record<string, unknown> | undefined;
  try {
    tags = (await exifr.parse(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength), options)) as
      | Record<string, unknown>
      | undefined;
  } catch {
    return {};
  }
  return tags ? cameraMetadataFromTags(tags) : {};
}

/** Pure mapping from exifr's tag names to CameraMetadata. */
export function cameraMetadataFromTags(t: Record<string, unknown>): CameraMetadata {
  const str = (v: unknown) => (typeof v === 'string' && v.trim() !== '' ? v.replace(/\0+$/, '').trim() : undefined);
  const num = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);
  const out: CameraMetadata = {};
  const set = <K extends keyof CameraMetadata>(k: K, v: CameraMetadata[K] | undefined) => {
    if (v !== undefined) out[k] = v;
  };
  set('make', str(t.Make));
  set('model', str(t.Model));
  set('serial', str(t.BodySerialNumber) ?? str(t.SerialNumber) ?? str(t.CameraSerialNumber));
  set('lens', str(t.LensModel) ?? str(t.Lens));
  set('iso', num(t.ISO) ?? num(t.ISOSpeedRatings) ?? (Array.isArray(t.ISO) ? num(t.ISO[0]) : undefined));
  set('exposureTime', num(t.ExposureTime));
  set('fNumber', num(t.FNumber));
  set('focalLength', num(t.FocalLength));
  set('captureTime', normaliseExifDate(str(t.DateTimeOriginal) ?? str(t.CreateDate)));
  set('software', str(t.Software));
  set('width', num(t.ExifImageWidth) ?? num(t.ImageWidth));
  set('height', num(t.ExifImageHeight) ?? num(t.ImageHeight));
  set('orientation', num(t.Orientation));
  const lat = num(t.latitude);
  const lon = num(t.longitude);
  if (lat !== undefined && lon !== undefined) out.gps = { latitude: lat, longitude: lon };
  return out;
}

/** 'YYYY:MM:DD HH:mm:ss' (EXIF) → 'YYYY-MM-DDTHH:mm:ss'; anything else → undefined. */
export function normaliseExifDate(v: string | undefined): string | undefined {
  const m = v?.match(/^(\d{4})[:-](\d{2})[:-](\d{2})[ T](\d{2}):(\d{2}):(\d{2})/);
  return m ? `${m[1]}-${m[2]}-${m[3]}T${m[4]}:${m[5]}:${m[6]}` : undefined;
}
