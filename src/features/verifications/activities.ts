import crypto from 'node:crypto';
import sharp from 'sharp';
import type { Logger } from 'pino';
import { inspectJpeg } from '../../analysis/image/jpeg-structure.js';
import type { AnalysisResult, Grade, RgbImage } from '../../analysis/types.js';
import { streamCorrelations, systemContext } from '../../core/es/commands.js';
import { foldStream, runCommand, type Folded } from '../../core/es/decider.js';
import { VERIFICATION_DEADLINE_MS, verificationDecider, verificationStream, type RenditionInput, type VerificationCommand, type VerificationState } from './decider.js';
import { legacyFailureFault, type AnalysisData, type FailureFault, type RenditionKind } from './events.js';
import { AppError } from '../../core/errors.js';
import type { BlobStore } from '../../core/blob-store.js';
import type { EventStore } from '../../core/es/event-store.js';
import { renderBadge } from '../../provenance/badge.js';
import { checkCredentials } from '../../provenance/check.js';
import { gradeFromCredentials } from '../../provenance/grade.js';
import { signVerifiedImage } from '../../provenance/sign.js';
import type { SignerConfig } from '../../provenance/signer-config.js';
import { makeThumbnail } from '../../provenance/thumbnail.js';
import type { TrustAnchors } from '../../provenance/trust.js';
import { AnalysisServiceFault, type AnalysisPool } from './analysis-pool.js';
import { ActivityError, type ActivityContext, type ActivityImplementations } from '../../core/es/workflow.js';
import { monthOf, refundMetering } from '../usage/index.js';
import { GENERIC_REASON, REJECTED, SERVICE_FAULT, SERVICE_FAULT_REASON, STEP_FAILED, type VerificationWorkflowActivities } from '../../../workflows/verifications/workflow.js';
import type { SweepSource } from '../../core/es/workflow.js';
import { unfinishedVerificationIds } from '../../../projections/verifications/index.js';
import type { RetentionSteps } from './retention.js';

export interface ActivityDeps {
  store: EventStore;
  blobs: BlobStore;
  log: Logger;
  now: () => Date;
  processingRegion: string;
  serviceName: string;
  pipelineBuild: string;
  trust: TrustAnchors;
  signer: () => Promise<SignerConfig>;
  /** Runs the CPU-bound pair analysis off the event loop. */
  analysisPool: AnalysisPool;
  /** Discards the RAW once the verification has finished (RAW_RETENTION). */
  retention: Pick<RetentionSteps, 'discardRaw'>;
}

/**
 * The verification's steps. Each reads the stream, does its work, and records its outcome as
 * one command on the state it read (no second read), through the decider, which ignores what
 * is already recorded: any step may run again after a crash without duplicating a fact. Files
 * are stored before the command that records them (a crash in between leaves a file the rerun
 * overwrites). Both workflow engines call these same functions.
 */
export function createVerificationActivities(deps: ActivityDeps) {
  const contextDeps = { config: { PROCESSING_REGION: deps.processingRegion }, now: deps.now };
  // The workflow acts for the upload request that queued the verification: its events carry that request's correlation id.
  const correlationOf = streamCorrelations(deps.store);
  const systemFor = async (id: string, accountId: string | null) =>
    systemContext(contextDeps, { actor: { type: 'system', id: 'verification-workflow' }, correlationId: await correlationOf(verificationStream(id), id), accountId });

  async function load(id: string): Promise<Folded<VerificationState>> {
    return foldStream(deps.store, verificationStream(id), verificationDecider);
  }

  /** Records a step, decided on `from` when given; returns the stream's state after it. */
  async function record(id: string, command: VerificationCommand, accountId: string | null, from?: Folded<VerificationState>): Promise<Folded<VerificationState>> {
    const ctx = await systemFor(id, accountId);
    return runCommand(deps.store, verificationStream(id), verificationDecider, command, ctx, from);
  }

  /** Stores a rendition's file; the step's command records it. */
  async function storeFile(id: string, kind: RenditionKind, bytes: Uint8Array, contentType: string, extension: string): Promise<RenditionInput> {
    const key = `verifications/${id}/${kind}.${extension}`;
    const stored = await deps.blobs.put(key, bytes);
    return { kind, blob_key: key, content_type: contentType, sha256: stored.sha256 };
  }

  /**
   * A pair that failed by the service's fault is not metered: its metering is released. Called
   * after the failure is recorded, and again by the workflow's first step (a run resumed after a
   * crash between the two finds the verification failed and releases it then).
   */
  async function refundServiceFault(id: string, state: VerificationState): Promise<void> {
    if (state.status !== 'failed' || state.mode !== 'raw_pair' || !state.accountId || !state.queuedAt || state.failureFault !== 'service') return;
    const ctx = await systemFor(id, state.accountId);
    if (await refundMetering(deps.store, { accountId: state.accountId, verificationId: id, month: monthOf(state.queuedAt) }, ctx)) {
      deps.log.info({ verification: id }, 'metering released: the verification failed by a service fault');
    }
  }

  return {
    load: async (id: string): Promise<VerificationState> => (await load(id)).state,

    /**
     * The state a run starts from; a service fault's metering still held (a crash after `fail`)
     * is released first, and a finished verification's RAW still kept (a crash after its last
     * event) is discarded.
     */
    async snapshot(id: string): Promise<VerificationState> {
      const folded = await load(id);
      const { state } = folded;
      await refundServiceFault(id, state);
      if (state.status === 'completed' || state.status === 'failed') await deps.retention.discardRaw(id, folded);
      return state;
    },

    async start(id: string): Promise<VerificationState> {
      const from = await load(id);
      return (await record(id, { type: 'Start', now: deps.now() }, from.state.accountId ?? null, from)).state;
    },

    /**
     * Runs the analyses and records results and grade, with the renditions made on the way
     * (skipped when already graded). When `signal` aborts (the deadline passed), the analysis
     * thread is terminated and nothing is recorded.
     */
    async analyzeAndGrade(id: string, signal?: AbortSignal): Promise<VerificationState> {
      const from = await load(id);
      const { state } = from;
      if (state.graded || !state.image || !state.accountId) return state;
      const image = await deps.blobs.read(state.image.blob_key);
      const now = deps.now();
      let results: (Omit<AnalysisResult, 'analysis'> & { analysis: AnalysisData['analysis'] })[];
      let grade: Grade & { evidence_report: Record<string, unknown> | null };
      let rawMetadata: Record<string, unknown> = {};
      let imageMetadata: Record<string, unknown> = { format: state.image.format, size: state.image.size };
      let renditionInfo: Record<string, unknown> = {};
      const renditions: RenditionInput[] = [];
      if (state.mode === 'raw_pair' && state.raw) {
        const raw = await deps.blobs.read(state.raw.blob_key);
        const analysis = await deps.analysisPool.analyze({ raw, image }, signal);
        results = analysis.results;
        grade = { ...analysis.grade, evidence_report: null };
        rawMetadata = { ...analysis.rawMetadata };
        imageMetadata = { ...imageMetadata, ...analysis.imageMetadata };
        renditionInfo = analysis.artifacts.transform ? { registration: analysis.artifacts.transform } : {};
        signal?.throwIfAborted();
        // Both PNGs encode at once (sharp works off the event loop); recorded in the usual order.
        const { heatmap, registeredReference } = analysis.artifacts;
        const [heatmapPng, referencePng] = await Promise.all([heatmap && encodePng(heatmap), registeredReference && encodePng(registeredReference)]);
        if (heatmapPng) renditions.push(await storeFile(id, 'heatmap', heatmapPng, 'image/png', 'png'));
        // The RAW as rendered and registered to the image, in the heatmap's grid: what the report page flickers against the photo.
        if (referencePng) renditions.push(await storeFile(id, 'raw_reference', referencePng, 'image/png', 'png'));
        // The RAW rendered at full size: the PSD export's RAW layer once the RAW itself is discarded.
        if (analysis.rawRenditionPng) renditions.push(await storeFile(id, 'raw_rendition', analysis.rawRenditionPng, 'image/png', 'png'));
      } else {
        // Pairs get it from the pipeline; same check as at upload (analysis/image/jpeg-structure).
        if (state.image.format === 'jpeg') imageMetadata = { ...imageMetadata, ...jpegTrailer(image) };
        const report = await checkCredentials(image, deps.trust);
        signal?.throwIfAborted();
        ({ results, grade } = gradeFromCredentials(report));
      }
      const command: VerificationCommand = {
        type: 'Grade',
        renditions,
        results: results.map((r) => ({ result_id: crypto.randomUUID(), analysis: r.analysis, result: r.result, confidence_score: r.confidence_score, details: r.details })),
        grade: { ...grade, raw_metadata: rawMetadata, image_metadata: imageMetadata, rendition_info: renditionInfo, rendition_corrected_info: {} },
        now,
      };
      return (await record(id, command, state.accountId, from)).state;
    },

    /** A verified pair gets the C2PA-signed image and the signed badge rendition (nothing more once `signal` aborts). */
    async signAndRender(id: string, signal?: AbortSignal): Promise<void> {
      const from = await load(id);
      const { state } = from;
      if (state.graded?.assurance_level !== 'verified' || !state.image || !state.raw || !state.accountId || !state.queuedAt) return;
      const [image, raw] = await Promise.all([deps.blobs.read(state.image.blob_key), deps.blobs.read(state.raw.blob_key)]);
      const signer = await deps.signer();
      const format = state.image.content_type === 'image/heic' ? 'image/heic' : 'image/jpeg';
      const assertion = {
        verificationId: id,
        assuranceLevel: state.graded.assurance_level,
        captureVerified: state.graded.capture_verified,
        imageSha256: state.image.sha256,
        rawSha256: state.raw.sha256,
        pipelineBuild: deps.pipelineBuild,
        processingRegion: deps.processingRegion,
      };
      const ingredient = { bytes: raw, name: state.raw.filename, format: state.raw.format };
      // The badge is drawn by sharp (off the event loop) while the image is signed on it.
      const badge =
        !state.renditions.has('badge') && format === 'image/jpeg'
          ? renderBadge({ jpeg: image, createdAt: state.queuedAt, metadata: state.graded.raw_metadata as BadgeMetadata, shortCode: state.shortCode, serviceName: deps.serviceName })
          : undefined;
      badge?.catch(() => {}); // awaited below; a rejection before then is not unhandled
      const renditions: RenditionInput[] = [];
      if (!state.renditions.has('signed_image')) {
        const signed = await signVerifiedImage({ image, format, raw: ingredient, assertion, title: state.image.filename }, signer);
        signal?.throwIfAborted();
        renditions.push(await storeFile(id, 'signed_image', signed, format, format === 'image/heic' ? 'heic' : 'jpg'));
      }
      if (badge) {
        const signedBadge = await signVerifiedImage({ image: await badge, format: 'image/jpeg', raw: ingredient, assertion, title: state.image.filename }, signer);
        signal?.throwIfAborted();
        renditions.push(await storeFile(id, 'badge', signedBadge, 'image/jpeg', 'jpg'));
      }
      if (renditions.length) await record(id, { type: 'StoreRenditions', renditions, now: deps.now() }, state.accountId, from);
    },

    /** Makes the thumbnail and completes the verification with it, in one append (`complete` then finds nothing left to do). */
    async thumbnail(id: string): Promise<void> {
      const from = await load(id);
      const { state } = from;
      // Finished already (completed, or failed or deleted meanwhile): no file to make.
      if (!state.graded || !state.image || !state.accountId || state.status !== 'in_progress') return;
      const renditions: RenditionInput[] = [];
      if (!state.renditions.has('thumbnail')) {
        try {
          renditions.push(await storeFile(id, 'thumbnail', await makeThumbnail(await deps.blobs.read(state.image.blob_key)), 'image/jpeg', 'jpg'));
        } catch (error) {
          // A thumbnail is a convenience: an image it cannot be made from does not fail the verification.
          deps.log.warn({ err: error, verification: id }, 'no thumbnail');
        }
      }
      await deps.retention.discardRaw(id, await record(id, { type: 'Complete', renditions, now: deps.now() }, state.accountId, from));
    },

    /**
     * Completes a verification the thumbnail step did not (a run recorded by an earlier version
     * of the steps), and discards its RAW if the thumbnail step's attempt was cut off before it did.
     */
    async complete(id: string, accountId: string): Promise<void> {
      await deps.retention.discardRaw(id, await record(id, { type: 'Complete', renditions: [], now: deps.now() }, accountId));
    },

    /** Records the failure; a service fault's metering is then released (a failure by the files stays metered), and the RAW discarded. */
    async fail(id: string, accountId: string | null, reason: string, fault: FailureFault): Promise<void> {
      const failed = await record(id, { type: 'Fail', reason, fault, now: deps.now() }, accountId);
      await refundServiceFault(id, failed.state);
      await deps.retention.discardRaw(id, failed);
    },
  };
}

export type VerificationActivities = ReturnType<typeof createVerificationActivities>;

/**
 * The verification workflow's activities (./workflow.ts) over the steps, for both engines:
 * JSON-safe values only, and errors named for the retry policy: an AppError (the user's file,
 * our rule) becomes a non-retryable `VerificationRejected` carrying the user-facing reason; an
 * `AnalysisServiceFault` (a stalled decoder: the service's fault, not the file's) a retryable
 * `VerificationServiceFault`; anything else is logged and becomes a retryable
 * `VerificationStepFailed` with the generic reason (its details keep the cause).
 */
export function createVerificationWorkflowActivities(steps: VerificationActivities, log: Logger): ActivityImplementations<VerificationWorkflowActivities> {
  async function guard<T>(step: string, id: string, context: ActivityContext, work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      if (context.signal.aborted) throw error; // stopped on purpose (deadline, timeout): nothing to report
      if (error instanceof AppError) throw new ActivityError(REJECTED, failureReason(error), { nonRetryable: true, details: [error.code] });
      if (error instanceof AnalysisServiceFault) {
        log.warn({ err: error, verification: id, step, attempt: context.attempt }, 'verification step could not finish (service fault); retrying');
        throw new ActivityError(SERVICE_FAULT, SERVICE_FAULT_REASON, { details: [error.message], cause: error });
      }
      log.error({ err: error, verification: id, step, attempt: context.attempt }, 'verification step failed');
      throw new ActivityError(STEP_FAILED, failureReason(error), { details: [(error as Error)?.message ?? String(error)], cause: error });
    }
  }

  return {
    snapshot: (context, id) =>
      guard('snapshot', id, context, async () => {
        const state = await steps.snapshot(id);
        return { status: state.status, accountId: state.accountId ?? null, deadlineAt: (state.queuedAt?.getTime() ?? 0) + VERIFICATION_DEADLINE_MS };
      }),
    start: (context, id) => guard('start', id, context, async () => void (await steps.start(id))),
    analyzeAndGrade: (context, id) => guard('analyzeAndGrade', id, context, async () => void (await steps.analyzeAndGrade(id, context.signal))),
    signAndRender: (context, id) => guard('signAndRender', id, context, () => steps.signAndRender(id, context.signal)),
    thumbnail: (context, id) => guard('thumbnail', id, context, () => steps.thumbnail(id)),
    complete: (context, id, accountId) => guard('complete', id, context, () => steps.complete(id, accountId as string)),
    fail: (context, id, accountId, reason, fault) =>
      guard('fail', id, context, () => {
        const recorded = reason ?? failureReason(null);
        // No fault: a call an earlier version's run scheduled; it is read as that version decided it.
        return steps.fail(id, accountId, recorded, fault ?? legacyFailureFault(recorded));
      }),
  };
}

/** The message a user sees for a failure: ours verbatim, anything unexpected generic. */
export function failureReason(error: unknown): string {
  return error instanceof AppError ? error.message : GENERIC_REASON;
}

type BadgeMetadata = { exposureTime?: number; fNumber?: number; iso?: number };

async function encodePng({ width, height, data }: RgbImage): Promise<Uint8Array> {
  return sharp(Buffer.from(data.buffer, data.byteOffset, data.byteLength), { raw: { width, height, channels: 3 } }).png().toBuffer();
}

/** `trailing_bytes` after the end-of-image marker of a stored JPEG (checked complete at upload). */
function jpegTrailer(bytes: Uint8Array): { trailing_bytes?: number } {
  const structure = inspectJpeg(bytes);
  return structure.ok ? { trailing_bytes: structure.trailingBytes } : {};
}

/** Verifications the read model shows unfinished: covers a crash between `VerificationQueued` and `start`. */
export async function verificationSweep({ knex }: SweepSource) {
  return (await unfinishedVerificationIds(knex)).map((id) => ({ id, input: {} }));
}
