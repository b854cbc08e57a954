import { systemContext } from '../../core/es/commands.js';
import { runCommand } from '../../core/es/decider.js';
import type { AppDeps } from '../../core/module/deps.js';
import type { ActivityImplementations, SweepSource } from '../../core/es/workflow.js';
import { requestDecider, requestStream } from './decider.js';
import { unrecordedExpiries } from '../../../projections/requests/index.js';
import { expiryRunId, type RequestExpiryActivities, type RequestExpiryInput } from '../../../workflows/requests/workflow.js';

export type RequestActivityDeps = Pick<AppDeps, 'store' | 'now' | 'config'>;

/**
 * The expiry step. Safe to run twice at once (two processes resuming the same run, or a swept run
 * next to the timer's): RequestExpired is appended against the revision it was decided on, once
 * per deadline, so a racing submission, close, PATCH or second expiry makes it decide again.
 */
export function createRequestActivities(deps: RequestActivityDeps): ActivityImplementations<RequestExpiryActivities> {
  return {
    async expireRequest(_context, requestId, expiresAt) {
      const stream = requestStream(requestId);
      const history = await deps.store.readStream(stream);
      if (history.length === 0) return { outcome: 'superseded' };
      // The events of a request belong to the requester's account (its audit history), and carry the correlation id of the request that opened it.
      const context = systemContext(deps, { actor: { type: 'system', id: 'request-expiry' }, correlationId: history[0]!.metadata.correlation_id, accountId: history[0]!.metadata.account_id });
      const { state } = await runCommand(deps.store, stream, requestDecider, { type: 'Expire', expires_at: expiresAt, now: context.now }, context);
      if (state.status !== 'open' || state.settings.expires_at !== expiresAt) return { outcome: 'superseded' };
      if (state.expiredFor === expiresAt) return { outcome: 'expired' };
      return { outcome: 'not_due', dueAt: new Date(expiresAt).getTime() };
    },
  };
}

/**
 * Open requests past their deadline with no expiry recorded for it: a crash between the
 * request's append and its `start`, or a run that failed. Only those due (starting one per open
 * request every sweep would cost a call each on Temporal).
 */
export async function requestExpirySweep({ knex, now }: SweepSource): Promise<{ id: string; input: RequestExpiryInput }[]> {
  const rows = await unrecordedExpiries(knex, now);
  return rows.map((r) => {
    const expiresAt = new Date(r.expires_at).toISOString();
    return { id: expiryRunId(r.id, expiresAt), input: { request_id: r.id, expires_at: expiresAt } };
  });
}
