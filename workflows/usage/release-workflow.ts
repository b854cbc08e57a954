/**
 * THE orphaned metering release workflow, run by both engines (workflows/definition.ts). An upload
 * of a RAW+image pair meters the verification in the account's month usage stream and then
 * records VerificationQueued in the verification's own stream: a process killed between the two
 * leaves a reservation for a verification that never came to be, and the account's quota used
 * for nothing (a failure without a kill releases it itself: releaseMetering). Its registration's
 * sweep (src/features/usage/release-activities.ts) finds, in the usage and verifications read models, reservations not released, older
 * than the upload's own lifetime, whose verification has no row, and starts one run per
 * reservation, which re-reads the verification stream and, still empty, releases the
 * reservation in the month stream it was metered in (D-101). Deterministic code only:
 * Temporal's workflow bundle includes this module (types and pure helpers).
 */
import { oneStepWorkflow, recoveryStep } from '../definition.js';

export const METERING_RELEASE_WORKFLOW_TYPE = 'meteringRelease';

/**
 * Reservations older than this are not looked at: the bound keeps the sweep to recent rows.
 * The sweep also runs when the service opens, so only an outage longer than this leaves one.
 */
export const METERING_RELEASE_RECOVERY_MS = 7 * 24 * 60 * 60_000;

/** The run's id: one per metered verification (distinct from the verification workflow's own id). */
export const meteringReleaseId = (verificationId: string): string => `metering-release-${verificationId}`;

export interface MeteringReleaseInput {
  account_id: string;
  verification_id: string;
  /** The month the reservation was metered in: its usage stream (the month may have ended since). */
  month: string;
}

/** `released`: the reservation is given back (now, or before); `queued`: the verification exists after all, its metering stands. */
export type MeteringReleaseOutcome = 'released' | 'queued';

export interface MeteringReleaseActivities {
  /** Re-reads the verification stream and, empty, releases the reservation (idempotent). */
  releaseOrphanedMetering(input: MeteringReleaseInput): Promise<MeteringReleaseOutcome>;
}

export const meteringReleaseWorkflow = oneStepWorkflow<MeteringReleaseInput, MeteringReleaseActivities, MeteringReleaseOutcome>(
  METERING_RELEASE_WORKFLOW_TYPE,
  { releaseOrphanedMetering: recoveryStep() },
  (steps, input) => steps.releaseOrphanedMetering(input),
);
