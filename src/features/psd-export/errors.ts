import { AppError, ConflictError, NotFoundError, StateValidationError } from '../../core/errors.js';
import { defineErrors } from '../../core/errors.js';
import { PSD_DOWNLOADS_LIMIT, PSD_MAX_CANVAS_PIXELS, PSD_MAX_SIDE } from '../../../workflows/psd-export/policy.js';

/** Error codes of this feature and their HTTP statuses (docs/errors.md documents each). */
export const psdExportErrors = defineErrors({
  /** Spec 7: every download of this export has been used. */
  DOWNLOAD_LIMIT_REACHED: 403,
  /** Spec 7: no export was requested for this verification (or the verification is missing or not yours). */
  PSD_EXPORT_NOT_FOUND: 404,
  /** Spec 7 "PSD not ready": a download before the export completed (or after it failed). */
  PSD_NOT_READY: 409,
  /** Spec 7: the export is older than its 30 days; its file is deleted. */
  EXPIRED: 410,
  /** The photo is larger than a PSD export can be: a side beyond the PSD format's 30,000 px, or more pixels than one export's memory allows. */
  PSD_CANVAS_TOO_LARGE: 422,
});

type Codes = typeof psdExportErrors;
declare module '../../core/errors.js' {
  interface ErrorCodes extends Codes {}
}

const REQUEST = 'POST /v1/verifications/{verification_id}/psd-export';

export const psdExportNotFound = () =>
  new NotFoundError('PSD_EXPORT_NOT_FOUND', 'No PSD export was requested for this verification.', { suggestion: `Request one with ${REQUEST}.` });

export const psdNotReady = (status: string) =>
  new ConflictError('PSD_NOT_READY', `The PSD export is not ready: it is ${status}.`, {
    suggestion: status === 'failed' ? `It failed: request it again with ${REQUEST} (free of charge).` : `Wait for it: ${REQUEST}?wait=20 returns as soon as it is done.`,
    details: { status },
  });

export const psdExportExpired = (expiresAt: string) =>
  new AppError('EXPIRED', `The PSD export expired at ${expiresAt} (30 days after it was made) and its file is deleted.`, {
    suggestion: `Request it again with ${REQUEST}: regenerating an expired export is free of charge.`,
    details: { expires_at: expiresAt },
  });

export const downloadLimitReached = () =>
  new AppError('DOWNLOAD_LIMIT_REACHED', `All ${PSD_DOWNLOADS_LIMIT} downloads of this PSD export have been used.`, {
    suggestion: 'Keep the downloaded file; an export can be downloaded 5 times.',
    details: { downloads_limit: PSD_DOWNLOADS_LIMIT },
  });

/** Spec 4.1: 409 VALIDATION_ERROR for a verification that cannot be exported. */
export const notExportable = (why: 'not_completed' | 'image_only', status: string) =>
  new StateValidationError(
    why === 'image_only'
      ? 'Only a RAW+JPEG verification can be exported as a PSD: this one is image-only.'
      : `Only a completed verification can be exported as a PSD: this one is ${status}.`,
    {
      suggestion: why === 'image_only' ? 'Verify the photo together with its camera RAW, then export that verification.' : 'Wait until GET /v1/verifications/{verification_id} says completed.',
      details: { reason: why, verification_status: status },
    },
  );

const megapixels = (pixels: number) => `${Math.round(pixels / 100_000) / 10} MP`;

/**
 * The canvas (the photo's size, orientation applied) refused, or null when it fits: a side beyond
 * PSD_MAX_SIDE (the format stops there), or more than PSD_MAX_CANVAS_PIXELS (one export's memory).
 * The one check: the request's decision runs it before anything is reserved, the build before it renders.
 */
export function canvasRefusal(width: number, height: number): AppError | null {
  const details = { canvas_width: width, canvas_height: height, max_side: PSD_MAX_SIDE, max_pixels: PSD_MAX_CANVAS_PIXELS };
  if (Math.max(width, height) > PSD_MAX_SIDE) {
    return new AppError('PSD_CANVAS_TOO_LARGE', `The photo is ${width}x${height} px: a PSD stops at ${PSD_MAX_SIDE.toLocaleString('en')} px a side, so it cannot be exported.`, {
      suggestion: `A PSD export needs a photo at most ${PSD_MAX_SIDE.toLocaleString('en')} px a side and at most ${megapixels(PSD_MAX_CANVAS_PIXELS)}; nothing was charged.`,
      details,
    });
  }
  if (width * height > PSD_MAX_CANVAS_PIXELS) {
    return new AppError('PSD_CANVAS_TOO_LARGE', `The photo is ${width}x${height} px (${megapixels(width * height)}): more than the ${megapixels(PSD_MAX_CANVAS_PIXELS)} a PSD export can have.`, {
      suggestion: `A PSD export needs a photo of at most ${megapixels(PSD_MAX_CANVAS_PIXELS)} (${PSD_MAX_CANVAS_PIXELS.toLocaleString('en')} pixels) and ${PSD_MAX_SIDE.toLocaleString('en')} px a side; nothing was charged.`,
      details,
    });
  }
  return null;
}
