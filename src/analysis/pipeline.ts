/**
 * The RAW+image pipeline: decode the RAW, check its integrity, render a reference, register the
 * image to it, run the comparisons, grade. Pure over the two byte buffers (no I/O); bad input
 * throws FileError, never anything else.
 */
import { AppError } from '../core/errors.js';
import { type Affine, compose, decompose, gridScale } from './image/affine.js';
import { loadPairImage } from './image/load.js';
import { readCameraMetadata } from './image/metadata.js';
import { downscalePlane, lumaOf } from './image/ops.js';
import { analyzeRawIntegrity, decodeRaw, renderReference } from './raw/index.js';
import { registerImages } from './registration.js';
import { detectComposite } from './compare/composite.js';
import { analyzeExif } from './compare/exif.js';
import { buildComparisonFrame } from './compare/frame.js';
import { analyzeColorHistogram } from './compare/histogram.js';
import { analyzePerceptualHash } from './compare/phash.js';
import { analyzeProcessingChain } from './compare/processing-chain.js';
import { analyzeRecapture } from './compare/recapture.js';
import { analyzeSensorPattern } from './compare/sensor-pattern.js';
import { analyzeSsim, round } from './compare/ssim.js';
import { type GradingFacts, gradePair } from './grading.js';
import type { AnalysisResult, CameraMetadata, DecodedRaw, Grade, ProgressFn, RgbImage } from './types.js';
import { recaptureCalibratedFormats } from './types.js';

/** Long side of the grid the pixel comparisons run on (LIBRARY-NOTES: enough, and fast). */
export const workingSide = 1024;
/** Registration NCC below which the image is not the RAW's scene. */
export const minRegistrationScore = 0.7;

export interface PairInput {
  raw: Uint8Array;
  image: Uint8Array;
  onProgress?: ProgressFn;
}

export interface RegistrationSummary {
  /** Full-resolution image pixel → full-resolution reference pixel (2x3 affine, row-major). */
  imageToReference: Affine;
  scale: number;
  rotationDeg: number;
  flipped: boolean;
  score: number;
  coverage: number;
}

export interface PairAnalysis {
  results: AnalysisResult[];
  grade: Grade;
  facts: GradingFacts;
  artifacts: {
    /** SSIM difference heatmap in the working grid (blue = difference). */
    heatmap?: RgbImage;
    /** The RAW reference warped into the image's working grid. */
    registeredReference?: RgbImage;
    /** The RAW rendered at full size (the registration's reference): what the PSD export's RAW layer is made from. */
    reference?: RgbImage;
    transform?: RegistrationSummary;
  };
  rawMetadata: CameraMetadata & { format?: string; container?: Record<string, unknown> };
  imageMetadata: CameraMetadata & { format?: string; width?: number; height?: number; trailing_bytes?: number };
}

export async function analyzePair({ raw: rawBytes, image: imageBytes, onProgress }: PairInput): Promise<PairAnalysis> {
  const progress = onProgress ?? (() => {});
  progress('decode', 0);
  const [decoded, loaded, rawExif] = await Promise.all([
    decodeRaw(rawBytes),
    loadPairImage(imageBytes),
    readCameraMetadata(rawBytes),
  ]);
  const imageMetadata = {
    ...loaded.metadata,
    format: loaded.format,
    width: loaded.image.width,
    height: loaded.image.height,
    ...(loaded.trailingBytes === undefined ? {} : { trailing_bytes: loaded.trailingBytes }),
  };
  if (decoded.kind === 'unsupported_variant') {
    const facts: GradingFacts = { unsupportedVariant: { format: decoded.format, variant: decoded.variant } };
    const results: AnalysisResult[] = [
      {
        analysis: 'raw_integrity',
        result: null,
        confidence_score: 0,
        details: { note: `Unsupported ${decoded.format} compression variant: ${decoded.variant}`, variant: decoded.variant, ...decoded.details },
      },
      analyzeExif({ ...rawExif }, loaded.metadata),
    ];
    progress('done', 1);
    return { results, grade: gradePair(results, facts), facts, artifacts: {}, rawMetadata: { ...rawExif, format: decoded.format }, imageMetadata };
  }
  const raw = decoded.raw;
  const rawMetadata = { ...rawExif, ...raw.metadata, format: raw.format, container: raw.container };
  progress('integrity', 0.35);
  const integrity = integrityOf(raw);
  progress('render', 0.45);
  const reference = await renderReference(raw);

  progress('register', 0.6);
  const refWork = downscalePlane(lumaOf(reference), workingSide);
  const imgWork = downscalePlane(lumaOf(loaded.image), workingSide);
  const registration = registerImages(refWork, imgWork);
  const imageToReference = compose(
    gridScale(refWork.width, refWork.height, reference.width, reference.height),
    compose(registration.transform, gridScale(loaded.image.width, loaded.image.height, imgWork.width, imgWork.height)),
  );
  const transform: RegistrationSummary = {
    imageToReference,
    ...decompose(imageToReference),
    score: round(registration.score),
    coverage: round(registration.coverage),
  };

  progress('compare', 0.75);
  const frame = buildComparisonFrame(reference, loaded.image, imageToReference, workingSide);
  const ssim = analyzeSsim(frame);
  const composite = detectComposite(frame);
  const results: AnalysisResult[] = [
    integrity,
    { ...ssim.result, details: { ...ssim.result.details, registration: transform } },
    analyzePerceptualHash(frame),
    analyzeColorHistogram(frame),
    analyzeProcessingChain(frame),
    analyzeExif(rawMetadata, loaded.metadata),
    analyzeSensorPattern(reference, loaded.image, imageToReference),
    analyzeRecapture(reference, loaded.image),
  ];
  const facts: GradingFacts = {
    registrationFailed: registration.score < minRegistrationScore,
    multiFrame: composite.multiFrame,
    rawConverted: isConverterWritten(raw, integrity),
    ...(recaptureCalibratedFormats.includes(raw.format) ? {} : { recaptureUncalibrated: raw.format }),
  };
  const ssimDetails = results[1]!.details;
  ssimDetails.composite = composite;
  progress('done', 1);
  return {
    results,
    grade: gradePair(results, facts),
    facts,
    artifacts: { heatmap: ssim.heatmap, registeredReference: frame.reference, reference, transform },
    rawMetadata,
    imageMetadata,
  };
}

/** Integrity is one analysis among several: if it cannot run, say so and go on (continue and collect). */
function integrityOf(raw: DecodedRaw): AnalysisResult {
  try {
    return analyzeRawIntegrity(raw);
  } catch (error) {
    if (error instanceof AppError) throw error;
    return {
      analysis: 'raw_integrity',
      result: null,
      confidence_score: 0,
      details: { note: 'RAW integrity analysis could not run', error: (error as Error).message },
    };
  }
}

/** A converter-written RAW (linear or resampled DNG) is real image data but not the sensor's own. */
function isConverterWritten(raw: DecodedRaw, integrity: AnalysisResult): boolean {
  const c = raw.container;
  return (
    integrity.details.converter_written === true ||
    c.photometric === 'LinearRaw' ||
    (typeof c.cfaSource === 'string' && c.cfaSource !== 'sensor')
  );
}

