import { systemContext } from '../../core/commands.js';
import type { AppDeps } from '../../core/deps.js';
import type { ActivityImplementations } from '../../core/workflow.js';
import { verificationStream } from '../verifications/decider.js';
import { usageStream } from './decider.js';
import { refundMetering } from './metering.js';
import type { MeteringReleaseActivities } from './release-workflow.js';

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
