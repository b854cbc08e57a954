/**
 * EXIF analysis (advisory, grading rule 1): the image's camera facts against the RAW's.
 * Missing EXIF is no evidence either way (result null); only a field present on both sides
 * that disagrees is a contradiction (result false). Editors keep DateTimeOriginal and the
 * exposure tags, so those must match exactly; names are compared after normalising case,
 * spacing and a repeated make prefix ("Canon EOS 30D" vs "EOS 30D").
 */
import type { AnalysisResult, CameraMetadata } from '../types.js';

/** Capture times may differ by this much (sub-second rounding, RAW vs JPEG write). */
const maxClockSkewSeconds = 2;
const relativeTolerance = 0.02;

type Comparison = { field: string; raw: unknown; image: unknown; match: boolean };

export function analyzeExif(raw: CameraMetadata, image: CameraMetadata): AnalysisResult {
  const compared: Comparison[] = [];
  const missing: string[] = [];
  const check = <T>(field: string, a: T | undefined, b: T | undefined, eq: (x: T, y: T) => boolean) => {
    if (a === undefined || b === undefined) {
      if (a !== undefined) missing.push(field);
      return;
    }
    compared.push({ field, raw: a, image: b, match: eq(a, b) });
  };
  const make = raw.make ?? image.make;
  check('make', raw.make, image.make, (a, b) => normaliseName(a) === normaliseName(b));
  check('model', raw.model, image.model, (a, b) => normaliseModel(a, make) === normaliseModel(b, make));
  check('serial', raw.serial, image.serial, (a, b) => a.replace(/^0+/, '') === b.replace(/^0+/, ''));
  check('lens', raw.lens, image.lens, (a, b) => normaliseName(a).includes(normaliseName(b)) || normaliseName(b).includes(normaliseName(a)));
  check('iso', raw.iso, image.iso, (a, b) => a === b);
  check('exposure_time', raw.exposureTime, image.exposureTime, close);
  check('f_number', raw.fNumber, image.fNumber, close);
  check('focal_length', raw.focalLength, image.focalLength, close);
  check('capture_time', raw.captureTime, image.captureTime, (a, b) => Math.abs(Date.parse(a + 'Z') - Date.parse(b + 'Z')) <= maxClockSkewSeconds * 1000);
  const mismatches = compared.filter((c) => !c.match);
  const result = compared.length === 0 ? null : mismatches.length === 0;
  return {
    analysis: 'exif',
    result,
    confidence_score: compared.length === 0 ? 0 : Math.min(1, 0.5 + 0.1 * compared.length) * (mismatches.length ? Math.min(1, 0.6 + 0.2 * mismatches.length) : 1),
    details: {
      advisory: true,
      note:
        compared.length === 0
          ? 'The image carries no camera EXIF to compare: this is not evidence either way.'
          : mismatches.length
            ? `The image's metadata contradicts the RAW: ${mismatches.map((m) => m.field).join(', ')}.`
            : 'Every camera field present in both files agrees.',
      compared,
      mismatched_fields: mismatches.map((m) => m.field),
      missing_in_image: missing,
      software: image.software,
    },
  };
}

function close(a: number, b: number): boolean {
  return Math.abs(a - b) <= relativeTolerance * Math.max(Math.abs(a), Math.abs(b));
}

function normaliseName(s: string): string {
  return s.toLowerCase().replace(/corporation|co\.,? ?ltd\.?|inc\.?/g, '').replace(/[^a-z0-9]+/g, '');
}

function normaliseModel(model: string, make: string | undefined): string {
  const m = normaliseName(model);
  const k = make ? normaliseName(make) : '';
  return k && m.startsWith(k) ? m.slice(k.length) : m;
}
