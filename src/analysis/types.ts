/**
 * Shared shapes of the analysis engine. Pure data: no I/O, no HTTP.
 * The RAW side (src/analysis/raw/) produces DecodedRaw and the reference rendering;
 * the comparison side (registration, the analyses, grading) consumes them.
 */

/**
 * Camera RAW formats taken, named by content (format-detect.ts): the ten of the spec's floor,
 * then the older and medium-format ones LibRaw (libraw-wasm) also decodes (issue 40). Whether a
 * given file decodes is LibRaw's answer on its bytes, not this list's.
 */
export const rawFormats = ['CR2', 'CR3', 'ARW', 'NEF', 'DNG', 'RAF', 'ORF', 'RW2', 'PEF', 'SRW', 'CRW', 'KDC', 'QTK', 'MRW', '3FR', 'IIQ', 'MOS', 'MEF', 'ERF'] as const;
export type RawFormat = (typeof rawFormats)[number];

/**
 * The file name extensions each RAW format is usually saved with: only for a file picker's
 * `accept` list and its hint (a file is named by its content, never by its name).
 */
export const rawFileExtensions: Readonly<Record<RawFormat, readonly string[]>> = {
  CR2: ['cr2'], CR3: ['cr3'], ARW: ['arw'], NEF: ['nef'], DNG: ['dng'], RAF: ['raf'], ORF: ['orf'], RW2: ['rw2'], PEF: ['pef'], SRW: ['srw'],
  CRW: ['crw'], KDC: ['kdc', 'dcr'], QTK: ['qtk'], MRW: ['mrw'], '3FR': ['3fr'], IIQ: ['iiq'], MOS: ['mos'], MEF: ['mef'], ERF: ['erf'],
};

/** Every RAW extension, in the formats' order (an upload form's `accept`, and where a dropped file goes). */
export const rawExtensions: readonly string[] = rawFormats.flatMap((format) => rawFileExtensions[format]);

/**
 * The formats the recapture check was calibrated on (docs/analysis.md, "Recapture"): the spec's
 * ten. On the older sensors added by issue 40 its periodic peaks are not known to mean a screen or
 * a print (a genuine Canon PowerShot G2 CRW shows 19 of them), so there it never flags alone.
 */
export const recaptureCalibratedFormats: readonly RawFormat[] = rawFormats.slice(0, 10);

/** Interleaved 8-bit sRGB pixels, row-major, top-left origin, already in display orientation. */
export interface RgbImage {
  width: number;
  height: number;
  data: Uint8Array; // length = width * height * 3
}

/** Single-channel float plane (e.g. luminance in 0..1, or a noise residual). */
export interface Plane {
  width: number;
  height: number;
  data: Float32Array;
}

/** Camera and exposure facts read from a file's metadata (RAW or JPEG). Absent = unknown. */
export interface CameraMetadata {
  make?: string;
  model?: string;
  serial?: string;
  lens?: string;
  iso?: number;
  exposureTime?: number; // seconds
  fNumber?: number;
  focalLength?: number; // mm
  /** Capture time as written by the camera, local wall-clock, ISO-like 'YYYY-MM-DDTHH:mm:ss'. */
  captureTime?: string;
  software?: string;
  width?: number;
  height?: number;
  orientation?: number; // EXIF 1..8
  gps?: { latitude: number; longitude: number };
}

/** What the RAW decoder hands to the analyses. */
export interface DecodedRaw {
  format: RawFormat;
  /** Bayer mosaic of the visible sensor area, unscaled sensor values. */
  cfa: Uint16Array;
  width: number;
  height: number;
  /** 2x2 pattern read row by row, e.g. 'RGGB'. */
  cfaPattern: string;
  blackLevel: number;
  /** Per-CFA-position black levels when they differ (same order as cfaPattern). */
  channelBlack?: [number, number, number, number];
  whiteLevel: number;
  /** As-shot white balance multipliers (R, G, B, G2), as LibRaw reports them. */
  asShotWb: [number, number, number, number];
  /** Camera RGB -> sRGB (3x3, row-major) when known. */
  camToSrgb?: number[];
  /** EXIF orientation 1..8 to apply to the rendered reference. */
  orientation: number;
  metadata: CameraMetadata;
  /** Facts about the container useful as evidence (DNG linear/reduced, converter software...). */
  container: Record<string, unknown>;
  /**
   * Present only when the file stores already-demosaiced linear data (DNG LinearRaw): interleaved
   * camera RGB, width * height * 3, same levels as `cfa`. `cfa` is then a mosaic resampled from it
   * (container.cfaSource says so) and is not sensor evidence.
   */
  linearRgb?: Uint16Array;
}

export const analysisNames = [
  'raw_integrity',
  'ssim',
  'perceptual_hash',
  'color_histogram',
  'processing_chain',
  'exif',
  'sensor_pattern',
  'recapture',
] as const;
export type AnalysisName = (typeof analysisNames)[number];

/** One Result entry of spec section 2.2, before ids and timestamps are attached. */
export interface AnalysisResult {
  analysis: AnalysisName;
  /** true = passes, false = evidence against, null = could not be decided. */
  result: boolean | null;
  /** 0..1, how sure the analysis is of `result`. */
  confidence_score: number;
  details: Record<string, unknown>;
}

/** The grading vocabulary (spec 2.1), declared once: the API schemas and events use these lists. */
export const assuranceLevels = ['verified', 'provisional', 'provenance', 'unrated', 'flagged'] as const;
export type AssuranceLevel = (typeof assuranceLevels)[number];

export const verdicts = ['ai_declared', 'modified_after_signing', 'provenance_verified', 'self_declared_ai', 'unrated'] as const;
export type Verdict = (typeof verdicts)[number];

export const verdictReasons = [
  'watermark_detected',
  'c2pa_generative_declared',
  'tampered',
  'invalid_signature',
  'c2pa_trusted_capture',
  'untrusted_signer_generative',
  'iptc_digital_source_type',
  'generator_metadata',
  'container_signature',
  'untrusted_signer',
  'trust_unverified',
  'no_capture_claim',
  'no_trusted_timestamp',
  'unlisted_actions_present',
  'computational_capture_only',
  'unrated_indeterminate',
  'unrated_reviewed_clean',
  'unrated_no_evidence',
] as const;
export type VerdictReason = (typeof verdictReasons)[number];

/** The grade of a verification (spec 1 grading rules; 2.1 fields). */
export interface Grade {
  assurance_level: AssuranceLevel;
  assurance_reason: string;
  verdict: Verdict | null;
  verdict_reason: VerdictReason | null;
  capture_verified: boolean;
  /** Legacy boolean: true = authentic. */
  result: boolean;
  /** Average export similarity, not a probability. */
  result_confidence: number;
}

/** Progress callback for long work: phase name and fraction 0..1 of the whole job. */
export type ProgressFn = (phase: string, fraction: number) => void;
