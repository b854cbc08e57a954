/**
 * THE orphaned PSD export reservation release workflow, run by both engines
 * (workflows/definition.ts). A PSD export request reserves the export's place in the account's
 * month usage stream (usage's assertPsdExportAllowed: PsdExportReserved) and then records
 * PsdExportRequested in the verification's export stream: a process killed between the two leaves
 * a reservation no export names, holding one of the month's included exports (or its budget) for
 * ever. Its registration's sweep (src/features/psd-export/cleanup-activities.ts) finds, in the
 * usage and psd_exports read models, reservations still reserved, older than any request lives,
 * whose export was never recorded, and starts one run per reservation, which re-reads the export
 * stream and, the export still unrecorded there, releases the reservation (usage's release is
 * idempotent). The psd-export feature owns it: it may read usage, usage may not read it. As
 * workflows/usage/release-workflow.ts does for verifications. Deterministic code only: Temporal's
 * workflow bundle includes this module (types and pure helpers).
 */
import { oneStepWorkflow, recoveryStep } from '../definition.js';

export const PSD_RESERVATION_RELEASE_WORKFLOW_TYPE = 'psdReservationRelease';

/** The run's id: one per reserved export (distinct from the export's own run, whose id is the export id). */
export const psdReservationReleaseId = (exportId: string): string => `psd-reservation-release-${exportId}`;

export interface PsdReservationReleaseInput {
  account_id: string;
  verification_id: string;
  export_id: string;
  /** When it was reserved (ISO 8601): its UTC month is the usage stream that holds the reservation. */
  reserved_at: string;
}

/** `released`: the reservation is given back (now, or before); `requested`: the export is recorded after all, its run charges or releases it. */
export type PsdReservationReleaseOutcome = 'released' | 'requested';

export interface PsdReservationReleaseActivities {
  /** Re-reads the verification's export stream and, the export never requested there, releases its reservation (idempotent). */
  releaseOrphanedPsdReservation(input: PsdReservationReleaseInput): Promise<PsdReservationReleaseOutcome>;
}

export const psdReservationReleaseWorkflow = oneStepWorkflow<PsdReservationReleaseInput, PsdReservationReleaseActivities, PsdReservationReleaseOutcome>(
  PSD_RESERVATION_RELEASE_WORKFLOW_TYPE,
  { releaseOrphanedPsdReservation: recoveryStep() },
  (steps, input) => steps.releaseOrphanedPsdReservation(input),
);
