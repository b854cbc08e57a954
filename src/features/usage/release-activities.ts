import { systemContext } from '../../core/es/commands.js';
import type { AppDeps } from '../../core/module/deps.js';
import type { ActivityImplementations } from '../../core/es/workflow.js';
import { verificationStream } from '../verifications/events.js';
import { usageStream } from './decider.js';
import { refundMetering } from './metering.js';
import type { MeteringReleaseActivities } from '../../../workflows/usage/release-workflow.js';
import type { SweepSource } from '../../core/es/workflow.js';
import { orphanedMeterings } from '../../../projections/usage/index.js';
import { METERING_RELEASE_RECOVERY_MS, meteringReleaseId } from '../../../workflows/usage/release-workflow.js';

type ReleaseActivityDeps = Pick<AppDeps, 'store' | 'config' | 'now'>;

export function createMeteringReleaseActivities(deps: ReleaseActivityDeps): ActivityImplementations<MeteringReleaseActivities> {
  return {
    async releaseOrphanedMetering(_context, input) {
      // The stream, not the read model: a VerificationQueued not projected yet still means the reservation is used.
      if ((await deps.store.readStream(verificationStream(input.verification_id))).length > 0) return 'queued';
      const metered = (await deps.store.readStream(usageStream(input.account_id, input.month))).find(
        (e) => e.type === 'VerificationMetered' && e.data.verification_id === input.verification_id,
      );
      if (!metered) return 'released';
      // The killed request, as its metering named it; the service acts.
      const context = {
        ...systemContext(deps, { actor: { type: 'system', id: 'metering-release' }, correlationId: metered.metadata.correlation_id, accountId: input.account_id }),
        causationId: metered.id,
      };
      // Idempotent: a reservation released already appends nothing.
      await refundMetering(deps.store, { accountId: input.account_id, verificationId: input.verification_id, month: input.month }, context);
      return 'released';
    },
  };
}

/**
 * Reservations of the last week, older than `graceMs` (METERING_RELEASE_GRACE_MS), with no
 * verification: normally none. A younger one may belong to an upload still in progress (metered,
 * its files being committed); longer than any upload request lives, a reservation this old
 * without its VerificationQueued never gets one.
 */
export function meteringReleaseSweep(graceMs: number) {
  return async ({ knex, now }: SweepSource) => {
    const orphans = await orphanedMeterings(knex, { from: new Date(now.getTime() - METERING_RELEASE_RECOVERY_MS), before: new Date(now.getTime() - graceMs) });
    return orphans.map(({ account_id, verification_id, month }) => ({ id: meteringReleaseId(verification_id), input: { account_id, verification_id, month } }));
  };
}
