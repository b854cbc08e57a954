/**
 * Worker-thread entry that runs the RAW+image analysis. It keeps the ~2 s of CPU-bound work per
 * pair off the service's event loop, so HTTP stays responsive while pairs are analysed.
 */
import { parentPort } from 'node:worker_threads';
import { analyzePair } from '../../analysis/pipeline.js';
import { AppError } from '../../core/errors.js';

export interface AnalysisJob {
  raw: Uint8Array;
  image: Uint8Array;
}

export type AnalysisReply =
  | { ok: true; analysis: Awaited<ReturnType<typeof analyzePair>> }
  | {
      ok: false;
      appError?: { code: AppError['code']; message: string; suggestion?: string; details?: Record<string, unknown> };
      /** The service, not the file, kept the analysis from finishing (a stalled decoder): worth retrying. */
      serviceFault?: boolean;
      message: string;
    };

parentPort?.on('message', async (job: AnalysisJob) => {
  let reply: AnalysisReply;
  try {
    reply = { ok: true, analysis: await analyzePair(job) };
  } catch (error) {
    reply =
      error instanceof AppError
        ? { ok: false, appError: { code: error.code, message: error.message, suggestion: error.suggestion, details: error.details }, message: error.message }
        : { ok: false, message: (error as Error)?.stack ?? String(error), ...((error as { serviceFault?: unknown })?.serviceFault === true ? { serviceFault: true } : {}) };
  }
  parentPort!.postMessage(reply);
});
