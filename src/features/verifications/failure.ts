import { supportedRawFormats } from '../../analysis/raw/index.js';
import { parseEvent } from '../../core/es/events.js';
import type { EventStore } from '../../core/es/event-store.js';
import { DEADLINE_REASON } from '../../../workflows/verifications/workflow.js';
import { verificationEvents, verificationStream, type FailureFault } from './events.js';
import { acceptedImageFormats } from './file-checks.js';
import { imageOf, rawOf, type VerificationRow } from '../../../projections/verifications/index.js';

/**
 * A failed verification in plain words (issue 39 item 2): what happened and what to do next,
 * derived from the failure its events recorded (VerificationFailed: the reason and whose fault
 * it is, `fault`). A failure of the service's own (the deadline, a stalled decoder, an
 * unexpected error) never blames the files; a refusal of the files says which file and which
 * formats are taken. One copy for every page that shows a failure (the web app's list, the
 * report the owner and a share link see).
 */

/** The failure as its VerificationFailed recorded it (the event's upcast supplies `fault` for the events before it). */
export interface RecordedFailure {
  reason: string;
  fault: FailureFault;
}

/** The last VerificationFailed of the verification's stream, or null when it has not failed. */
export async function recordedFailure(store: Pick<EventStore, 'readStream'>, verificationId: string): Promise<RecordedFailure | null> {
  const events = await store.readStream(verificationStream(verificationId));
  for (const stored of [...events].reverse()) {
    if (stored.type !== 'VerificationFailed') continue;
    const event = parseEvent(verificationEvents, stored);
    if (event?.type === 'VerificationFailed') return { reason: event.data.failure_reason, fault: event.data.fault };
  }
  return null;
}

/** The files of the failed verification, as its record names them. */
export interface FailedFiles {
  mode: 'raw_pair' | 'image_only';
  image: { filename: string; format: string };
  raw: { filename: string; format: string } | null;
}

export interface FailureExplanation {
  /** The state's label (a grey state of its own: neither a grade nor "no result yet"). */
  label: string;
  /** Whose the failure is, as recorded. */
  fault: FailureFault;
  /** What happened, in a sentence. */
  summary: string;
  /** What to do next. */
  next: string;
  /** The reason as the service recorded it (for the curious, and for support). */
  recorded: string;
}

/** The state's label wherever a failed verification is shown. */
export const FAILED_LABEL = 'Not completed';

/**
 * Which of the files a refusal was about, from the recorded reason's own words: the image's
 * messages begin with it ("The JPEG …", "The HEIF/HEIC …", "The image …"), the RAW's name its
 * format ("This CR3 file …") or a camera RAW. null: the reason does not say.
 */
function refusedFile(reason: string, files: FailedFiles): 'image' | 'raw' | null {
  if (!files.raw) return 'image';
  if (/^The (image|JPEG|HEIF)/.test(reason)) return 'image';
  const rawFormat = files.raw.format.replace(/[^A-Za-z0-9]/g, '');
  if ((rawFormat && new RegExp(`\\b${rawFormat}\\b`, 'i').test(reason)) || /\bRAW\b/.test(reason)) return 'raw';
  return null;
}

const named = (file: { filename: string; format: string }) => `${file.filename} (${file.format.toUpperCase()})`;

export function explainFailure(failure: RecordedFailure, files: FailedFiles): FailureExplanation {
  const what = files.raw ? 'pair' : 'photo';
  const again = files.raw ? `the photo ${named(files.image)} with its RAW file ${named(files.raw)}` : `the photo ${named(files.image)}`;
  const base = { label: FAILED_LABEL, fault: failure.fault, recorded: failure.reason };
  if (failure.fault === 'service') {
    const happened = failure.reason === DEADLINE_REASON ? `The service did not finish checking this ${what} within the 10 minutes a verification is given.` : `The service could not finish checking this ${what}.`;
    return {
      ...base,
      summary: `${happened} This is not a problem with your files, and it was not counted against your quota.`,
      next: `Upload the same files again: ${again}. If it fails again, try again later.`,
    };
  }
  switch (refusedFile(failure.reason, files)) {
    case 'raw':
      return {
        ...base,
        summary: `The RAW file ${named(files.raw!)} could not be analysed.`,
        next: `Upload the pair again with the RAW file exactly as the camera wrote it, complete (not converted, re-saved or cut short by the copy). Supported RAW formats: ${supportedRawFormats}.`,
      };
    case 'image':
      return {
        ...base,
        summary: `The photo ${named(files.image)} could not be analysed.`,
        next: files.raw
          ? `Upload the pair again with the complete ${acceptedImageFormats(true)} file made from this RAW, as the camera or your converter wrote it.`
          : `Upload the original file again, complete: ${acceptedImageFormats(false)}.`,
      };
    case null:
      return {
        ...base,
        summary: `The files of this ${what} could not be analysed.`,
        next: `Upload the pair again: the complete ${acceptedImageFormats(true)} photo with the RAW file it was made from, exactly as the camera wrote it (supported RAW formats: ${supportedRawFormats}).`,
      };
  }
}

/**
 * A verification's failure explained from its record: null unless it failed. The read model's
 * row names the files; the stream's VerificationFailed says the reason and whose fault it is (a
 * failed row always has one; were it missing, the files are not blamed).
 */
export async function failureOf(store: Pick<EventStore, 'readStream'>, row: VerificationRow): Promise<FailureExplanation | null> {
  if (row.status !== 'failed') return null;
  const failure = (await recordedFailure(store, row.id)) ?? { reason: row.failure_reason ?? '', fault: 'service' as const };
  return explainFailure(failure, { mode: row.verification_mode, image: imageOf(row), raw: rawOf(row) });
}
