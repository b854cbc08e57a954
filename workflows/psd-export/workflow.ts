/**
 * THE PSD export workflow, run by both engines (workflows/definition.ts): one run per requested
 * export (id: its export_id; a regeneration is a new export, so a new run). It builds the file
 * (a long step that heartbeats and is retried), records the completion and meters it, or records
 * the failure and gives its reservation back; then it waits on a durable timer until 30 days
 * after the completion and records the expiry, deleting the file. Deterministic code only:
 * Temporal's workflow bundle includes this module (types and pure helpers).
 *
 * Every step is idempotent against the export's stream (src/features/psd-export/decider.ts), so a
 * run re-executed from the top after a restart, or a retried step, records nothing twice and
 * meters once (the metering is idempotent per export_id too).
 */
import { ActivityFailed, type ActivityOptions, type DueStep, type RetryPolicy, whenDue, type WorkflowDefinition } from '../definition.js';
import { psdExportExpiresAt } from './policy.js';

export const PSD_EXPORT_WORKFLOW_TYPE = 'psdExport';

/** ActivityError type of a build that cannot succeed (the verification is gone or cannot be exported): never retried. */
export const PSD_REJECTED = 'PsdExportRejected';

/** The failure reason of everything else (retries exhausted, timeouts): the user's files are not blamed. */
export const PSD_GENERIC_REASON = 'The PSD could not be built (the service failed or was too busy); it was not charged. Request it again: regenerating is free.';

/** The failure reason of an export whose verification was deleted before the export was built or recorded. */
export const PSD_VERIFICATION_DELETED_REASON = 'The verification was deleted, so its PSD was not kept; it was not charged.';

/** Where the run's export stands, as its stream says. `superseded`: a newer export of the verification replaced it (or it was never recorded). */
export type PsdExportStep =
  | { status: 'in_progress' | 'failed' | 'expired' | 'superseded' }
  | { status: 'completed'; completedAt: string };

/** What the build leaves in the blob store (plain JSON). */
export interface PsdFile {
  blob_key: string;
  sha256: string;
  file_size_bytes: number;
  canvas_width: number;
  canvas_height: number;
}

/** `expired`: recorded (now or before) and the file deleted; `superseded`: not the current export; `not_due`: call again at `dueAt` (epoch ms). */
export type PsdExpiryStep = DueStep<'expired' | 'superseded'>;

/** The steps (names are global across workflows: hence the prefix). Each takes the verification id and the run's export id. */
export interface PsdExportActivities {
  /** Records the start (once); where the export stands. An export found ended (a run resumed after a kill) is charged or released again: both are idempotent. */
  startPsdExport(verificationId: string, exportId: string): Promise<PsdExportStep>;
  /** Builds the file and stores it (again, on a retry: the file is replaced). Heartbeats while it works. */
  buildPsdExport(verificationId: string, exportId: string): Promise<PsdFile>;
  /** Records the completion (once) and meters it (once per export); where the export stands then. */
  completePsdExport(verificationId: string, exportId: string, file: PsdFile): Promise<PsdExportStep>;
  /** Records the failure (once) and releases the export's reservation (never charged); where the export stands then. */
  failPsdExport(verificationId: string, exportId: string, reason: string): Promise<PsdExportStep>;
  /** Records the expiry (once) and deletes the file, when due. */
  expirePsdExport(verificationId: string, exportId: string): Promise<PsdExpiryStep>;
}

export interface PsdExportInput {
  verification_id: string;
}

export type PsdExportOutcome = 'expired' | 'failed' | 'superseded';

const retry: RetryPolicy = { initialIntervalMs: 1_000, backoffCoefficient: 2, maximumIntervalMs: 30_000, maximumAttempts: 5, nonRetryableErrorTypes: [PSD_REJECTED] };
const step: ActivityOptions = { startToCloseTimeoutMs: 60_000, retry };
/**
 * A 24 MP pair builds in well under a minute on an idle machine; 10 minutes leaves room for a busy
 * one. Heartbeats (Temporal): a killed worker's build is retried elsewhere within 30 s.
 */
const build: ActivityOptions = { startToCloseTimeoutMs: 10 * 60_000, heartbeatTimeoutMs: 30_000, retry: { ...retry, maximumAttempts: 3 } };
/** Recording the end must not give up on a transient error: it is what ends the export (and charges or releases it). */
const record: ActivityOptions = { startToCloseTimeoutMs: 60_000, retry: { ...retry, maximumAttempts: 20, maximumIntervalMs: 60_000 } };

export const psdExportWorkflow: WorkflowDefinition<PsdExportInput, PsdExportActivities, PsdExportOutcome> = {
  type: PSD_EXPORT_WORKFLOW_TYPE,
  activities: { startPsdExport: step, buildPsdExport: build, completePsdExport: record, failPsdExport: record, expirePsdExport: step },

  async run(ctx, input) {
    const { id: exportId, activities: a } = ctx;
    const verificationId = input.verification_id;
    let state = await a.startPsdExport(verificationId, exportId);
    if (state.status === 'in_progress') {
      try {
        const file = await a.buildPsdExport(verificationId, exportId);
        state = await a.completePsdExport(verificationId, exportId, file);
      } catch (error) {
        if (ctx.isCancellation(error)) throw error; // interrupted from outside: the run resumes from the top
        const reason = error instanceof ActivityFailed && error.type === PSD_REJECTED ? error.message : PSD_GENERIC_REASON;
        // A completion recorded before the failure (metering outlasting its retries) stands: the state says which.
        state = await ctx.nonCancellable(() => a.failPsdExport(verificationId, exportId, reason));
      }
    }
    if (state.status !== 'completed') return state.status === 'expired' ? 'expired' : state.status === 'failed' ? 'failed' : 'superseded';
    // Derived from the recorded completion.
    return whenDue(ctx, psdExportExpiresAt(state.completedAt), () => a.expirePsdExport(verificationId, exportId));
  },
};
