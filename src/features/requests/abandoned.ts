import { execute } from '../../core/commands.js';
import type { CommandContext } from '../../core/decider.js';
import type { AppDeps } from '../../core/deps.js';
import type { Call } from '../../core/principal.js';
import { requestDecider, requestStream } from './decider.js';
import { abandonedSubmissions } from './queries.js';

/**
 * How long after a submission is counted its verification must be recorded. A submission is
 * counted before its files are received (so the cap holds); a process killed between the two
 * leaves a place counted with no verification. Longer than any upload (100 MB on a slow link)
 * and the checks after it take.
 */
export const ABANDONED_AFTER_MS = 6 * 3_600_000;

/**
 * Gives back the places of the request's abandoned submissions (counted, never recorded as a
 * verification, ABANDONED_AFTER_MS ago), before the request is next used (a submission, a
 * DELETE): no sweep needed, since nothing but those uses depends on the count being exact.
 */
export async function withdrawAbandoned(deps: AppDeps, call: Call, requestId: string, context: CommandContext): Promise<void> {
  const abandoned = await abandonedSubmissions(deps.knex, requestId, new Date(context.now.getTime() - ABANDONED_AFTER_MS));
  for (const verificationId of abandoned) {
    await execute(deps, call, requestStream(requestId), requestDecider, { type: 'Withdraw', verification_id: verificationId, reason: 'ABANDONED', now: context.now }, context);
  }
}
