/**
 * Worker-thread entry that runs the RAW+image analysis. It keeps the ~2 s of CPU-bound work per
 * pair off the service's event loop, so HTTP stays responsive while pairs are analysed. It also
 * renders a RAW alone (`{ render }`): the full-size rendering of a pair analysed before it was
 * kept, made before that pair's RAW is discarded (retention.ts).
 */
import { parentPort } from 'node:worker_threads';
import sharp from 'sharp';
import { analyzePair, type PairAnalysis } from '../../analysis/pipeline.js';
import { decodeRaw, renderReference } from '../../analysis/raw/index.js';
import type { RgbImage } from '../../analysis/types.js';
import { AppError } from '../../core/errors.js';

export interface PairJob {
  raw: Uint8Array;
  image: Uint8Array;
}

export type AnalysisJob = PairJob | { render: Uint8Array };

/**
 * The analysis as the thread answers it: the full-size RAW rendering leaves the thread as a
 * lossless PNG (the `raw_rendition` kept for the PSD export once the RAW is discarded), encoded
 * here, off the service's event loop, instead of as 3 bytes a pixel to copy.
 */
export type ThreadAnalysis = PairAnalysis & { rawRenditionPng?: Uint8Array };

export type AnalysisReply =
  | { ok: true; analysis: ThreadAnalysis }
  | { ok: true; rendition: Uint8Array | null }
  | {
      ok: false;
      appError?: { code: AppError['code']; message: string; suggestion?: string; details?: Record<string, unknown> };
      /** The service, not the file, kept the analysis from finishing (a stalled decoder): worth retrying. */
      serviceFault?: boolean;
      message: string;
    };

parentPort?.on('message', (job: AnalysisJob) => {
  // Every failure of the job is a reply; a reply that cannot be posted fails the thread: thrown
  // outside the promise, it reaches the pool as the worker's 'error'.
  answer(job).catch((error: unknown) => queueMicrotask(() => { throw error; }));
});

async function answer(job: AnalysisJob): Promise<void> {
  let reply: AnalysisReply;
  try {
    if ('render' in job) {
      const rendition = await renderRaw(job.render);
      parentPort!.postMessage({ ok: true, rendition } satisfies AnalysisReply, rendition ? [rendition.buffer as ArrayBuffer] : []);
      return;
    }
    const analysis = await analyzePair(job);
    const { reference, ...artifacts } = analysis.artifacts;
    const rawRenditionPng = reference && (await encodePng(reference));
    reply = { ok: true, analysis: { ...analysis, artifacts, ...(rawRenditionPng && { rawRenditionPng }) } };
    parentPort!.postMessage(reply, rawRenditionPng ? [rawRenditionPng.buffer as ArrayBuffer] : []);
    return;
  } catch (error) {
    reply =
      error instanceof AppError
        ? { ok: false, appError: { code: error.code, message: error.message, suggestion: error.suggestion, details: error.details }, message: error.message }
        : { ok: false, message: (error as Error)?.stack ?? String(error), ...((error as { serviceFault?: unknown })?.serviceFault === true ? { serviceFault: true } : {}) };
  }
  parentPort!.postMessage(reply);
}

/** The rendering the analysis makes (pipeline.ts: renderReference, default options), as its PNG; null when the decoder cannot render this RAW. */
async function renderRaw(bytes: Uint8Array): Promise<Uint8Array | null> {
  const decoded = await decodeRaw(bytes);
  return decoded.kind === 'decoded' ? encodePng(await renderReference(decoded.raw)) : null;
}

/** Lossless: the RAW layer a PSD export makes from it is the same, pixel for pixel, as one made from the RAW. */
async function encodePng({ width, height, data }: RgbImage): Promise<Uint8Array> {
  const png = await sharp(Buffer.from(data.buffer, data.byteOffset, data.byteLength), { raw: { width, height, channels: 3 } }).png().toBuffer();
  // A buffer of its own, so it can move to the parent rather than be copied.
  return png.byteOffset === 0 && png.byteLength === png.buffer.byteLength ? png : new Uint8Array(png);
}
