/**
 * CameraMetadata from LibRaw's own parse, completed with exifr where exifr reads the container
 * (it cannot read CR3 or RAF). LibRaw is preferred for what it normalises (make, model, body
 * serial from maker notes); exifr for what it keeps verbatim (capture time strings, lens model,
 * software, GPS).
 */
import exifr from 'exifr';
import type { CameraMetadata, RawFormat } from '../types.js';

/** The subset of libraw-wasm's metadata(true) this module reads. */
export interface LibRawMeta {
  width: number;
  height: number;
  raw_width: number;
  raw_height: number;
  top_margin: number;
  left_margin: number;
  flip: number;
  camera_make: string;
  camera_model: string;
  iso_speed: number;
  shutter: number;
  aperture: number;
  focal_len: number;
  timestamp: Date;
  gps_data?: { latitude: number[]; longitude: number[]; latref: string | null; longref: string | null; gpsparsed: boolean };
  color_data?: {
    black: number;
    maximum: number;
    cam_mul: number[];
    pre_mul: number[];
    rgb_cam: number[][];
    dng_levels?: { asshotneutral: number[]; analogbalance: number[]; dng_whitelevel: number[]; baseline_exposure: number };
  };
  lens?: { Lens: string; LensSerial: string; makernotes?: { Lens: string } };
  shootinginfo?: { BodySerial: string; InternalBodySerial: string };
  software?: string;
  filters?: number;
  colors?: number;
  cdesc?: string;
  raw_inset_crops?: { cleft: number; ctop: number; cwidth: number; cheight: number }[];
  dng_version?: number;
}

const exifrUnreadable: ReadonlySet<RawFormat | 'KDC'> = new Set(['CR3', 'RAF']);

/** LibRaw's `flip` (dcraw convention) to EXIF orientation 1..8. */
export function orientationFromFlip(flip: number): number {
  return [1, 2, 4, 3, 5, 8, 6, 7][flip] ?? 1;
}

function nonEmpty(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  const trimmed = value.replace(/\0+$/, '').trim();
  return trimmed.length > 0 && trimmed !== 'unknown' ? trimmed : undefined;
}

function positive(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : undefined;
}

/**
 * An exposure field the EXIF records decides, and 0 there means unknown: LibRaw's value is taken
 * only when the EXIF has neither the field nor its APEX twin, because LibRaw derives 1 s and f/1
 * from an APEX 0 (2^0) and a badge must not print values the camera never recorded.
 */
function exposureField(e: Record<string, unknown>, field: string, apex: string | undefined, fromLibRaw: unknown): number | undefined {
  if (field in e) return positive(e[field]);
  // An APEX value may be negative (a shutter speed value of -1 is 2 s); only 0 is "unknown".
  if (apex && apex in e && !(typeof e[apex] === 'number' && Number.isFinite(e[apex]) && e[apex] !== 0)) return undefined;
  return positive(fromLibRaw);
}

/** 'YYYY:MM:DD HH:mm:ss' (EXIF) to 'YYYY-MM-DDTHH:mm:ss'; anything else is dropped. */
function exifTime(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  const m = /^(\d{4}):(\d{2}):(\d{2})[ T](\d{2}):(\d{2}):(\d{2})/.exec(value);
  return m && m[1] !== '0000' ? `${m[1]}-${m[2]}-${m[3]}T${m[4]}:${m[5]}:${m[6]}` : undefined;
}

/**
 * LibRaw converts the camera's wall-clock time with mktime() in the wasm runtime, which runs in
 * UTC, so the UTC fields of its Date are the camera's local wall-clock fields.
 */
function libRawTime(value: Date): string | undefined {
  const ms = value.getTime();
  return Number.isFinite(ms) && ms > 0 ? value.toISOString().slice(0, 19) : undefined;
}

function dmsToDegrees(dms: number[], ref: string | null, negativeRef: string): number {
  const degrees = (dms[0] ?? 0) + (dms[1] ?? 0) / 60 + (dms[2] ?? 0) / 3600;
  return ref === negativeRef ? -degrees : degrees;
}

async function readExif(bytes: Uint8Array): Promise<Record<string, unknown> | undefined> {
  try {
    const parsed: unknown = await exifr.parse(bytes, {
      tiff: true,
      exif: true,
      gps: true,
      makerNote: false,
      interop: false,
      ifd1: false,
      reviveValues: false,
      translateValues: false,
    });
    return parsed && typeof parsed === 'object' ? (parsed as Record<string, unknown>) : undefined;
  } catch {
    // Metadata is best effort: LibRaw's parse still gives the essentials.
    return undefined;
  }
}

export async function cameraMetadata(
  bytes: Uint8Array,
  format: RawFormat | 'KDC',
  meta: LibRawMeta,
  dims: { width: number; height: number; orientation: number },
): Promise<CameraMetadata> {
  const exif = exifrUnreadable.has(format) ? undefined : await readExif(bytes);
  const e = exif ?? {};
  const gps = meta.gps_data;
  const result: CameraMetadata = {
    make: nonEmpty(meta.camera_make) ?? nonEmpty(e.Make),
    model: nonEmpty(meta.camera_model) ?? nonEmpty(e.Model),
    serial:
      nonEmpty(meta.shootinginfo?.BodySerial) ??
      nonEmpty(e.BodySerialNumber) ??
      nonEmpty(e.SerialNumber) ??
      nonEmpty(e.CameraSerialNumber) ??
      nonEmpty(meta.shootinginfo?.InternalBodySerial),
    lens: nonEmpty(e.LensModel) ?? nonEmpty(meta.lens?.Lens) ?? nonEmpty(meta.lens?.makernotes?.Lens),
    iso: positive(meta.iso_speed) ?? positive(e.ISO),
    exposureTime: exposureField(e, 'ExposureTime', 'ShutterSpeedValue', meta.shutter),
    fNumber: exposureField(e, 'FNumber', 'ApertureValue', meta.aperture),
    focalLength: exposureField(e, 'FocalLength', undefined, meta.focal_len),
    captureTime: exifTime(e.DateTimeOriginal) ?? exifTime(e.CreateDate) ?? libRawTime(meta.timestamp),
    software: nonEmpty(e.Software) ?? nonEmpty(meta.software),
    width: dims.width,
    height: dims.height,
    orientation: dims.orientation,
  };
  const latitude = e.latitude;
  const longitude = e.longitude;
  if (typeof latitude === 'number' && typeof longitude === 'number') {
    result.gps = { latitude, longitude };
  } else if (gps?.gpsparsed && gps.latref && gps.longref) {
    result.gps = {
      latitude: dmsToDegrees(gps.latitude, gps.latref, 'S'),
      longitude: dmsToDegrees(gps.longitude, gps.longref, 'W'),
    };
  }
  for (const key of Object.keys(result) as (keyof CameraMetadata)[]) {
    if (result[key] === undefined) delete result[key];
  }
  return result;
}
