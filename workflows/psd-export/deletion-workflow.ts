/**
 * THE PSD export deletion workflow, run by both engines (workflows/definition.ts). Deleting a
 * verification deletes the files its own events name, not its PSD export (the verifications
 * feature does not know psd-export), which would otherwise stay until the export's 30-day expiry.
 * Its registration's sweep (src/features/psd-export/cleanup-activities.ts) finds completed,
 * unexpired exports whose verification has no row in the verifications read model, and starts one
 * run per export, which re-reads the verification's stream and, deleted there, records the
 * export's end (PsdExportExpired with the reason `verification_deleted`: the audit history shows
 * it) and deletes the file. The export's own run, asleep on its 30-day timer, then finds it expired
 * and has nothing left to do. Deterministic code only: Temporal's workflow bundle includes this
 * module (types and pure helpers).
 */
import { oneStepWorkflow, recoveryStep } from '../definition.js';

export const PSD_EXPORT_DELETION_WORKFLOW_TYPE = 'psdExportDeletion';

/** The run's id: one per export (distinct from the export's own run, whose id is the export id). */
export const psdExportDeletionId = (exportId: string): string => `psd-export-deletion-${exportId}`;

export interface PsdExportDeletionInput {
  verification_id: string;
  export_id: string;
}

/**
 * `deleted`: the export's end is recorded (now, or before) and its file deleted; `live`: the
 * verification is not deleted (its read model lagged or was being rebuilt), nothing is done;
 * `not_current`: the export is not the verification's completed current one, nothing is done.
 */
export type PsdExportDeletionOutcome = 'deleted' | 'live' | 'not_current';

export interface PsdExportDeletionActivities {
  /** Re-reads the verification's stream and, deleted there, records the export's end (once) and deletes its file. */
  deletePsdExportOfDeletedVerification(input: PsdExportDeletionInput): Promise<PsdExportDeletionOutcome>;
}

export const psdExportDeletionWorkflow = oneStepWorkflow<PsdExportDeletionInput, PsdExportDeletionActivities, PsdExportDeletionOutcome>(
  PSD_EXPORT_DELETION_WORKFLOW_TYPE,
  { deletePsdExportOfDeletedVerification: recoveryStep() },
  (steps, input) => steps.deletePsdExportOfDeletedVerification(input),
);
