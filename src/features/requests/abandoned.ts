import { execute, systemContext } from '../../core/es/commands.js';
import type { CommandContext } from '../../core/es/decider.js';
import { runCommand } from '../../core/es/decider.js';
import type { AppDeps } from '../../core/module/deps.js';
import type { Call } from '../../core/principal.js';
import type { ActivityImplementations, SweepSource } from '../../core/es/workflow.js';
import { verificationStream } from '../verifications/events.js';
import { requestDecider, requestStream } from './decider.js';
import { abandonedSubmissions, abandonedSubmissionsBefore } from '../../../projections/requests/index.js';
import { submissionReleaseId, type SubmissionReleaseActivities, type SubmissionReleaseInput } from '../../../workflows/requests/abandoned-workflow.js';

/**
 * How long after a submission is counted its verification must be recorded. A submission is
 * counted before its files are received (so the cap holds); a process killed between the two
 * leaves a place counted with no verification. Longer than any upload (100 MB on a slow link)
 * and the checks after it take.
 */
export const ABANDONED_AFTER_MS = 6 * 3_600_000;

/**
 * Gives back the places of the request's abandoned submissions before the request is next used
 * (a submission, a DELETE), so the cap and DELETE's 409 are exact at that moment even if the
 * release sweep has not passed yet.
 */
export async function withdrawAbandoned(deps: AppDeps, call: Call, requestId: string, context: CommandContext): Promise<void> {
  const abandoned = await abandonedSubmissions(deps.knex, requestId, new Date(context.now.getTime() - ABANDONED_AFTER_MS));
  for (const verificationId of abandoned) {
    await execute(deps, call, requestStream(requestId), requestDecider, { type: 'Withdraw', verification_id: verificationId, reason: 'ABANDONED', now: context.now }, context);
  }
}

/** The step of workflows/requests/abandoned-workflow.ts. */
export function createSubmissionReleaseActivities(deps: Pick<AppDeps, 'store' | 'now' | 'config'>): ActivityImplementations<SubmissionReleaseActivities> {
  return {
    async withdrawAbandonedSubmission(_context, input) {
      // The stream, not the read model: a verification recorded but not projected yet keeps its place.
      if ((await deps.store.readStream(verificationStream(input.verification_id))).length > 0) return 'recorded';
      const stream = requestStream(input.request_id);
      const history = await deps.store.readStream(stream);
      // The request's events belong to the requester's account (its audit history).
      const context = systemContext(deps, { actor: { type: 'system', id: 'request-submission-release' }, correlationId: stream, accountId: history[0]?.metadata.account_id ?? null });
      // Idempotent: a submission withdrawn already (or a request deleted) appends nothing.
      await runCommand(deps.store, stream, requestDecider, { type: 'Withdraw', verification_id: input.verification_id, reason: 'ABANDONED', now: context.now }, context);
      return 'withdrawn';
    },
  };
}

/** Submissions counted ABANDONED_AFTER_MS ago whose verification the read model still does not hold: normally none. */
export async function submissionReleaseSweep({ knex, now }: SweepSource): Promise<{ id: string; input: SubmissionReleaseInput }[]> {
  const rows = await abandonedSubmissionsBefore(knex, new Date(now.getTime() - ABANDONED_AFTER_MS));
  return rows.map((r) => ({ id: submissionReleaseId(r.verification_id), input: { request_id: r.request_id, verification_id: r.verification_id } }));
}
