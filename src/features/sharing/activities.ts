import type { AppDeps } from '../../core/module/deps.js';
import { parseEvent } from '../../core/es/events.js';
import type { StoredEvent } from '../../core/es/event-store.js';
import type { ActivityImplementations } from '../../core/es/workflow.js';
import { queuedMailIds, queueOwedMail, type OutgoingMail } from '../mail/index.js';
import { findVerification } from '../verifications/index.js';
import { shareDecider, shareStream, type ShareState } from './decider.js';
import { accessChangedMessage, actingUser, invitationMessage, sharerOf, toldOfAccessChange } from './notifications.js';
import type { ShareMailActivities, ShareMailInput } from '../../../workflows/sharing/workflow.js';
import type { SweepSource } from '../../core/es/workflow.js';
import { owedShareMails } from '../../../projections/sharing/index.js';
import { SHARE_MAIL_RECOVERY_MS } from '../../../workflows/sharing/workflow.js';

type ShareActivityDeps = Pick<AppDeps, 'store' | 'blobs' | 'knex' | 'config' | 'now'>;

export function createShareMailActivities(deps: ShareActivityDeps): ActivityImplementations<ShareMailActivities> {
  return {
    async queueShareMail(_context, id, input) {
      const owed = await owedMessage(deps, input);
      // The share owes another message now (or none): the run for that one queues it.
      if (!owed || owed.mail.id !== id) return 'superseded';
      // For the recorded change's request; the service acts.
      return queueOwedMail(deps, owed, 'share-mail-recovery');
    },
  };
}

type Shared = Extract<ShareState, { status: 'shared' }>;

/**
 * The message the share stream owes `input` now, built as the use case builds it from the state
 * after its command, with the event that caused it (its actor is the sharer).
 */
async function owedMessage(deps: ShareActivityDeps, input: ShareMailInput): Promise<{ mail: OutgoingMail; cause: StoredEvent } | null> {
  const history = await deps.store.readStream(shareStream(input.verification_id));
  let state = shareDecider.initialState();
  let cause: StoredEvent | undefined;
  let atCause: Shared | undefined;
  for (const stored of history) {
    const event = parseEvent(shareDecider.catalogue, stored);
    if (!event) continue;
    state = shareDecider.evolve(state, event);
    const causes = input.kind === 'invitation' ? event.type === 'ShareInvited' && event.data.email === input.email : event.type === 'ShareAccessChanged';
    if (causes && state.status === 'shared') [cause, atCause] = [stored, state];
  }
  const invitation = state.invitations.get(input.email);
  if (state.status !== 'shared' || !invitation || !cause || !atCause) return null;
  const row = await findVerification(deps.knex, input.verification_id);
  if (!row) return null;
  const sharer = await sharerOf(deps, await actingUser(deps, cause.metadata.actor), row.account_id);
  if (input.kind === 'invitation') {
    // The invitation as it was sent: the share as its command left it (restricted, by the decider's rule).
    return atCause.invitations.get(input.email)?.nonce === invitation.nonce ? { mail: invitationMessage(deps, row, atCause, input.email, invitation, sharer), cause } : null;
  }
  // Only the latest access change is told (an earlier one's notice would contradict it).
  if (!toldOfAccessChange(state).some(([email]) => email === input.email)) return null;
  return { mail: accessChangedMessage(deps, row, state, input.email, invitation, sharer), cause };
}

/** Owed messages of the last week without a queued message: normally none (the use case queued them). */
export async function shareMailSweep({ knex, now }: SweepSource) {
  const owed = await owedShareMails(knex, new Date(now.getTime() - SHARE_MAIL_RECOVERY_MS));
  const queued = await queuedMailIds(knex, owed.map((m) => m.mail_id));
  return owed.filter((m) => !queued.has(m.mail_id)).map(({ mail_id, verification_id, email, kind }) => ({ id: mail_id, input: { verification_id, email, kind } }));
}
