/**
 * Builds a completed pair verification's layered PSD (psd-document.ts) and stores it in the
 * blob store: the photo, the full-size RAW rendering the analysis kept (`raw_rendition`: the RAW
 * itself is discarded once the verification finishes) and the registration the analysis
 * recorded are read here, the
 * pixels are rendered in a worker thread of their own (psd-render.ts), and the file is staged
 * (hashed while written) then committed under the verification's key. A retry builds again and
 * replaces the file: the same verification gives the same layers and metadata.
 */
import { Readable } from 'node:stream';
import { Worker } from 'node:worker_threads';
import type { Affine } from '../../analysis/image/affine.js';
import { FileError, StateValidationError } from '../../core/errors.js';
import type { AppDeps } from '../../core/module/deps.js';
import { jsonColumn } from '../../core/es/json.js';
import { findVerification, imageOf, rawOf, renditionsOf, verificationNotFound, type VerificationRow } from '../verifications/index.js';
import { canvasRefusal } from './errors.js';
import type { PsdJob, RenderedPsd } from './psd-render.js';
import type { PsdReply } from './psd-thread.js';

export type PsdBuildDeps = Pick<AppDeps, 'knex' | 'blobs' | 'log'>;

export interface BuiltPsd {
  blobKey: string;
  sha256: string;
  fileSizeBytes: number;
  canvasWidth: number;
  canvasHeight: number;
}

/** Where a verification's export is kept (one per verification: a rebuild replaces it). */
export const psdBlobKey = (verificationId: string) => `verifications/${verificationId}/export.psd`;

/** Larger than any PSD the service can write (the format's 30,000 px side; the service's 100 MP photos). */
const maxPsdBytes = 2 ** 32;
/** The file goes to the blob store in slices (views, not copies): the store's metering keeps the last bytes of each chunk it sees. */
const sliceBytes = 1 << 20;

export async function buildPsdExport(deps: PsdBuildDeps, verificationId: string, signal: AbortSignal): Promise<BuiltPsd> {
  signal.throwIfAborted();
  const job = await readJob(deps, verificationId);
  signal.throwIfAborted();
  const psd = await renderInThread(job, signal);
  signal.throwIfAborted();
  const staged = await deps.blobs.stage(Readable.from(slices(psd.parts)), { maxBytes: maxPsdBytes });
  if (signal.aborted) {
    await staged.discard();
    signal.throwIfAborted();
  }
  const blobKey = psdBlobKey(verificationId);
  const stored = await staged.commit(blobKey);
  deps.log.info({ verification: verificationId, bytes: stored.size, width: psd.width, height: psd.height }, 'PSD export built');
  return { blobKey, sha256: stored.sha256, fileSizeBytes: stored.size, canvasWidth: psd.width, canvasHeight: psd.height };
}

/** The pair's files and facts, from the verification's row: a completed RAW+image pair with a registered RAW only. */
async function readJob(deps: PsdBuildDeps, verificationId: string): Promise<PsdJob> {
  const row = await findVerification(deps.knex, verificationId);
  if (!row) throw verificationNotFound();
  if (row.status !== 'completed' || row.verification_mode !== 'raw_pair') {
    throw new StateValidationError(`A PSD export needs a completed RAW+image verification; this one is ${row.verification_mode === 'raw_pair' ? row.status : 'image-only'}.`, {
      suggestion: row.verification_mode === 'raw_pair' ? 'Wait until the verification is completed.' : 'Submit the photo together with its RAW file.',
    });
  }
  const canvas = canvasOf(row);
  const tooLarge = canvas && canvasRefusal(canvas.width, canvas.height);
  if (tooLarge) throw tooLarge;
  const raw = rawOf(row);
  const renditions = renditionsOf(row);
  const heatmap = renditions.heatmap;
  const registration = (jsonColumn<Record<string, unknown>>(row.rendition_info) ?? {}).registration as { imageToReference?: Affine } | undefined;
  if (!raw || !heatmap || !registration?.imageToReference) {
    throw new StateValidationError('This pair has no registered RAW rendition (its RAW could not be rendered and aligned to the photo), so there is nothing to layer.', {
      suggestion: 'A PSD export needs a pair whose RAW the service decoded and aligned; the report says why this one was not.',
    });
  }
  // The RAW layer comes from the full-size rendering the analysis kept (or the RAW discard made
  // before discarding); only a pair analysed before it was kept whose RAW is kept (RAW_RETENTION=keep) is rendered from its RAW.
  const source = renditions.raw_rendition ?? (row.raw_discarded_at ? undefined : raw);
  if (!source) {
    throw new StateValidationError("This pair's RAW file was discarded after its verification and no full-size rendering of it was kept, so there is no RAW layer to export.", {
      suggestion: 'Verify the pair again to export it as a PSD.',
    });
  }
  const [sourceBytes, imageBytes, heatmapPng] = await Promise.all([deps.blobs.read(source.blob_key), deps.blobs.read(imageOf(row).blob_key), deps.blobs.read(heatmap.blob_key)]);
  return {
    rawLayer: renditions.raw_rendition ? { kind: 'rendition', png: sourceBytes } : { kind: 'raw', raw: sourceBytes },
    image: imageBytes,
    heatmapPng,
    imageToReference: registration.imageToReference,
    facts: { verificationId, shortCode: row.short_code, assuranceLevel: row.assurance_level ?? 'unrated', name: row.name },
  };
}

/** The photo's size as the analysis decoded it (orientation applied), which is the PSD's canvas; null when not recorded. */
export function canvasOf(row: VerificationRow): { width: number; height: number } | null {
  const { width, height } = jsonColumn<{ width?: unknown; height?: unknown }>(row.image_metadata) ?? {};
  return Number.isInteger(width) && Number.isInteger(height) ? { width: width as number, height: height as number } : null;
}

/** Renders in a thread of its own, terminated when done or when `signal` aborts (a synchronous PSD write cannot be interrupted otherwise). */
export async function renderInThread(job: PsdJob, signal: AbortSignal): Promise<RenderedPsd> {
  signal.throwIfAborted();
  // Compiled (dist/): the thread's own .js. From source (vitest, tsx): an .mjs entry registers tsx first.
  const entry = import.meta.url.endsWith('.ts') ? './psd-thread-entry.mjs' : './psd-thread.js';
  const worker = new Worker(new URL(entry, import.meta.url));
  try {
    let onAbort = () => {};
    const reply = await new Promise<PsdReply>((resolve, reject) => {
      onAbort = () => reject(signal.reason);
      signal.addEventListener('abort', onAbort, { once: true });
      worker.once('message', resolve);
      worker.once('error', reject);
      worker.once('exit', (code) => reject(new Error(`PSD thread exited with code ${code}`)));
      worker.postMessage(job);
    }).finally(() => {
      signal.removeEventListener('abort', onAbort);
      worker.removeAllListeners();
    });
    if (reply.ok) return reply.psd;
    const { appError } = reply;
    if (appError) {
      // The pair's own files: a RAW that cannot be rendered (409), or one that fails to decode.
      throw appError.code === 'VALIDATION_ERROR' ? new StateValidationError(appError.message, { suggestion: appError.suggestion }) : new FileError(appError.code, appError.message, { suggestion: appError.suggestion });
    }
    throw new Error(reply.message);
  } finally {
    await worker.terminate();
  }
}

function* slices(parts: Uint8Array[]): Generator<Buffer> {
  for (const part of parts) {
    for (let at = 0; at < part.length; at += sliceBytes) yield Buffer.from(part.buffer, part.byteOffset + at, Math.min(sliceBytes, part.length - at));
  }
}
