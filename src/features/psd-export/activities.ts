import { systemContext } from '../../core/es/commands.js';
import { foldStream, runCommand, type CommandContext } from '../../core/es/decider.js';
import type { AppDeps } from '../../core/module/deps.js';
import { AppError } from '../../core/errors.js';
import { ActivityError, type ActivityImplementations, type SweepSource } from '../../core/es/workflow.js';
import { meterPsdExport, releasePsdExport } from '../usage/index.js';
import { psdExportDecider, psdExportStream, type PsdExportCommand, type PsdExportState } from './decider.js';
import { buildPsdExport, psdBlobKey } from './psd-file.js';
import { verificationStream } from '../verifications/events.js';
import { expiredPsdExports, unfinishedPsdExports } from '../../../projections/psd-export/index.js';
import { PSD_REJECTED, PSD_VERIFICATION_DELETED_REASON, type PsdExportActivities, type PsdExportInput, type PsdExportStep } from '../../../workflows/psd-export/workflow.js';

export type PsdExportActivityDeps = Pick<AppDeps, 'store' | 'knex' | 'blobs' | 'log' | 'now' | 'config' | 'streamLocks'>;

/** Where the run's export stands, for the workflow (PsdExportStep). */
function stepOf(state: PsdExportState, exportId: string): PsdExportStep {
  if (state.status === 'none' || state.exportId !== exportId) return { status: 'superseded' };
  if (state.status === 'completed') return { status: 'completed', completedAt: state.file!.completedAt };
  if (state.status === 'queued') return { status: 'in_progress' }; // not started: the start is recorded next
  return { status: state.status };
}

/**
 * The export workflow's steps. Each decides on the export's stream, so a step run twice (a retry,
 * a run resumed from the top after a restart, two processes resuming the same run) records
 * nothing twice: Complete, Fail and Expire are appended only for the current export in the
 * state that allows them, against the revision they were decided on.
 */
export function createPsdExportActivities(deps: PsdExportActivityDeps): ActivityImplementations<PsdExportActivities> {
  /** The service acts, for the verification's account (its audit history): the account of the stream's request. */
  async function contextFor(verificationId: string, exportId: string): Promise<CommandContext> {
    const history = await deps.store.readStream(psdExportStream(verificationId));
    const accountId = history[0]?.metadata.account_id ?? null;
    // The run acts for the request that asked for this export: its events carry that request's correlation id.
    const requested = history.find((e) => e.type === 'PsdExportRequested' && e.data.export_id === exportId);
    return systemContext(deps, { actor: { type: 'system', id: 'psd-export' }, correlationId: requested?.metadata.correlation_id ?? exportId, accountId });
  }
  /**
   * Refuses to build or complete an export of a verification deleted meanwhile (issue 36 item 6),
   * as the verification's stream says (its read model may lag): the refusal is not retried, the
   * run records the failure, deletes a file already stored and gives the reservation back, so
   * nothing is charged and no file outlives the deletion.
   */
  async function refuseIfDeleted(verificationId: string): Promise<void> {
    const history = await deps.store.readStream(verificationStream(verificationId));
    if (history.some((e) => e.type === 'VerificationDeleted')) throw new ActivityError(PSD_REJECTED, PSD_VERIFICATION_DELETED_REASON, { nonRetryable: true });
  }
  const run = async (verificationId: string, command: PsdExportCommand, context: CommandContext) =>
    (await runCommand(deps.store, psdExportStream(verificationId), psdExportDecider, command, context)).state;

  /** The reservation usage holds for the export (none for a regeneration: meter and release then do nothing). */
  const chargeOf = (state: PsdExportState, context: CommandContext) =>
    state.status === 'none' ? null : { accountId: context.accountId!, exportId: state.exportId, requestedAt: new Date(state.requestedAt) };

  return {
    async startPsdExport(_context, verificationId, exportId) {
      const context = await contextFor(verificationId, exportId);
      const state = await run(verificationId, { type: 'Start', export_id: exportId, now: context.now }, context);
      const step = stepOf(state, exportId);
      // A run resumed after a kill between recording the end and charging (or releasing) it
      // finds the export ended: the charge or release is made here (both idempotent per export).
      const charge = chargeOf(state, context);
      if (charge && (step.status === 'completed' || step.status === 'expired')) await meterPsdExport(deps, context, charge);
      if (charge && step.status === 'failed') await releasePsdExport(deps, context, charge);
      return step;
    },

    async buildPsdExport(activity, verificationId, exportId) {
      const { state } = await foldStream(deps.store, psdExportStream(verificationId), psdExportDecider);
      // Built already (the completion recorded by an earlier attempt): nothing to build again.
      if (state.status !== 'none' && state.exportId === exportId && state.file) {
        const { blob_key, sha256, file_size_bytes, canvas_width, canvas_height } = state.file;
        return { blob_key, sha256, file_size_bytes, canvas_width, canvas_height };
      }
      await refuseIfDeleted(verificationId);
      let built;
      try {
        built = await buildPsdExport(deps, verificationId, activity.signal);
      } catch (error) {
        // The verification is gone or cannot be exported: retrying cannot change that.
        if (error instanceof AppError && error.code !== 'SERVICE_UNAVAILABLE') throw new ActivityError(PSD_REJECTED, error.message, { nonRetryable: true, cause: error });
        throw error;
      }
      // Deleted while it was built (a minute, for a large pair): the failure then deletes the file just stored.
      await refuseIfDeleted(verificationId);
      return { blob_key: built.blobKey, sha256: built.sha256, file_size_bytes: built.fileSizeBytes, canvas_width: built.canvasWidth, canvas_height: built.canvasHeight };
    },

    async completePsdExport(_context, verificationId, exportId, file) {
      const context = await contextFor(verificationId, exportId);
      // Not completed (nor charged) for a verification deleted since its build: the run records the failure instead.
      const { state: before } = await foldStream(deps.store, psdExportStream(verificationId), psdExportDecider);
      if (!(before.status === 'completed' && before.exportId === exportId)) await refuseIfDeleted(verificationId);
      const state = await run(verificationId, { type: 'Complete', export_id: exportId, now: context.now, ...file }, context);
      const step = stepOf(state, exportId);
      // Metered on completion, once per export (usage's metering is idempotent per export id): also when this is a retry after the completion was recorded.
      const charge = chargeOf(state, context);
      if (step.status === 'completed' && charge) await meterPsdExport(deps, context, charge);
      return step;
    },

    async failPsdExport(_context, verificationId, exportId, reason) {
      const context = await contextFor(verificationId, exportId);
      // A build that stored its file and then failed (say, its completion could not be recorded
      // within the retries) leaves no file anyone may download: deleted before the failure is
      // recorded, while this export is still the current one and not ended, so no regeneration
      // (which writes the same key) can have begun.
      const { state: before } = await foldStream(deps.store, psdExportStream(verificationId), psdExportDecider);
      if (before.status !== 'none' && before.exportId === exportId && (before.status === 'queued' || before.status === 'in_progress')) await deps.blobs.delete(psdBlobKey(verificationId));
      const state = await run(verificationId, { type: 'Fail', export_id: exportId, reason, now: context.now }, context);
      const step = stepOf(state, exportId);
      // A failed export is never charged: its reservation goes back (idempotent).
      const charge = chargeOf(state, context);
      if (step.status === 'failed' && charge) await releasePsdExport(deps, context, charge);
      return step;
    },

    async expirePsdExport(_context, verificationId, exportId) {
      const context = await contextFor(verificationId, exportId);
      const state = await run(verificationId, { type: 'Expire', export_id: exportId, now: context.now }, context);
      if (state.status === 'none' || state.exportId !== exportId) return { outcome: 'superseded' };
      if (state.status === 'expired') {
        // Deleted only while this export is the current one: a regeneration writes the same key.
        await deps.blobs.delete(state.file!.blob_key);
        return { outcome: 'expired' };
      }
      if (state.status === 'completed') return { outcome: 'not_due', dueAt: new Date(state.file!.expiresAt).getTime() };
      return { outcome: 'superseded' };
    },
  };
}

/**
 * Runs the domain says are needed and may lack: builds not finished (a crash between the
 * request's append and its `start`, or a run that failed for good) and completed exports past
 * their expiry (a run that died before its timer). Starting a run that is running is a no-op.
 */
export async function psdExportSweep({ knex, now }: SweepSource): Promise<{ id: string; input: PsdExportInput }[]> {
  const rows = [...(await unfinishedPsdExports(knex)), ...(await expiredPsdExports(knex, now))];
  return rows.map((r) => ({ id: r.export_id, input: { verification_id: r.verification_id } }));
}
