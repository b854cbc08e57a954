import { systemContext } from '../../core/es/commands.js';
import { runCommand } from '../../core/es/decider.js';
import type { AppDeps } from '../../core/module/deps.js';
import type { ActivityImplementations, SweepSource } from '../../core/es/workflow.js';
import { releasePsdExport, reservedPsdExportsBefore } from '../usage/index.js';
import { verificationStream } from '../verifications/events.js';
import { psdExportDecider, psdExportStream } from './decider.js';
import { psdExportsOfDeletedVerifications, recordedPsdExportIds } from '../../../projections/psd-export/index.js';
import { psdExportDeletionId, type PsdExportDeletionActivities, type PsdExportDeletionInput } from '../../../workflows/psd-export/deletion-workflow.js';
import { psdReservationReleaseId, type PsdReservationReleaseActivities, type PsdReservationReleaseInput } from '../../../workflows/psd-export/reservation-release-workflow.js';

type CleanupDeps = Pick<AppDeps, 'store' | 'blobs' | 'config' | 'now' | 'streamLocks'>;

const iso = (value: Date | string) => new Date(value).toISOString();

/** The steps of the two recovery workflows of PSD exports (workflows/psd-export/{reservation-release,deletion}-workflow.ts). */
export function createPsdCleanupActivities(deps: CleanupDeps): ActivityImplementations<PsdReservationReleaseActivities & PsdExportDeletionActivities> {
  return {
    async releaseOrphanedPsdReservation(_context, input) {
      // The stream, not the read model: a PsdExportRequested not projected yet (or whose row a regeneration replaced) still uses the reservation; its run charges or releases it.
      const history = await deps.store.readStream(psdExportStream(input.verification_id));
      if (history.some((e) => e.type === 'PsdExportRequested' && e.data.export_id === input.export_id)) return 'requested';
      // The service acts, for the account, under the export's id (the reservation's key).
      const context = systemContext(deps, { actor: { type: 'system', id: 'psd-reservation-release' }, correlationId: input.export_id, accountId: input.account_id });
      // Idempotent: a reservation released (or charged) already appends nothing.
      await releasePsdExport(deps, context, { accountId: input.account_id, exportId: input.export_id, requestedAt: new Date(input.reserved_at) });
      return 'released';
    },

    async deletePsdExportOfDeletedVerification(_context, input) {
      // The stream, not the read model: a verifications row missing because its projector lags or is rebuilt must not end a live export.
      const verification = await deps.store.readStream(verificationStream(input.verification_id));
      if (!verification.some((e) => e.type === 'VerificationDeleted')) return 'live';
      const stream = psdExportStream(input.verification_id);
      const history = await deps.store.readStream(stream);
      const accountId = history[0]?.metadata.account_id ?? null;
      // Acts for the request that asked for the export (docs/audit.md, "Correlation").
      const requested = history.find((e) => e.type === 'PsdExportRequested' && e.data.export_id === input.export_id);
      const context = systemContext(deps, { actor: { type: 'system', id: 'psd-export' }, correlationId: requested?.metadata.correlation_id ?? input.export_id, accountId });
      // Recorded once, for the current completed export only (a retried or second run records nothing).
      const { state } = await runCommand(deps.store, stream, psdExportDecider, { type: 'Expire', export_id: input.export_id, now: context.now, reason: 'verification_deleted' }, context);
      if (state.status !== 'expired' || state.exportId !== input.export_id) return 'not_current';
      // Deleting a deleted file is a no-op: a retry after the event was recorded deletes it then.
      await deps.blobs.delete(state.file!.blob_key);
      return 'deleted';
    },
  };
}

/**
 * Reservations still reserved, older than `graceMs` (METERING_RELEASE_GRACE_MS: longer than any
 * request lives, so the request that reserved one has recorded its export or died), whose export
 * the psd_exports read model does not hold: normally none. Reserved exports being built are held
 * there and skipped; the run re-reads the export stream before it releases.
 */
export function psdReservationReleaseSweep(graceMs: number) {
  return async ({ knex, now }: SweepSource): Promise<{ id: string; input: PsdReservationReleaseInput }[]> => {
    const reserved = await reservedPsdExportsBefore(knex, new Date(now.getTime() - graceMs));
    const recorded = await recordedPsdExportIds(knex, reserved.map((r) => r.export_id));
    return reserved
      .filter((r) => !recorded.has(r.export_id))
      .map((r) => ({ id: psdReservationReleaseId(r.export_id), input: { account_id: r.account_id, verification_id: r.verification_id, export_id: r.export_id, reserved_at: iso(r.reserved_at) } }));
  };
}

/** Completed exports, not expired, of verifications deleted since (their files are no longer needed): normally none for long. */
export async function psdExportDeletionSweep({ knex, now }: SweepSource): Promise<{ id: string; input: PsdExportDeletionInput }[]> {
  const rows = await psdExportsOfDeletedVerifications(knex, now);
  return rows.map((r) => ({ id: psdExportDeletionId(r.export_id), input: { verification_id: r.verification_id, export_id: r.export_id } }));
}
