import type { AppDeps } from '../../core/module/deps.js';
import { parseEvent, type EventOf } from '../../core/es/events.js';
import type { StoredEvent } from '../../core/es/event-store.js';
import type { ActivityImplementations } from '../../core/es/workflow.js';
import { sameHash } from '../../core/secrets.js';
import { actingUserId } from '../apikeys/index.js';
import { queuedMailIds, queueOwedMail } from '../mail/index.js';
import { accountDecider, accountStream } from './decider.js';
import type { accountEvents } from './events.js';
import { invitationMessage } from './invitation-message.js';
import type { InvitationMailActivities } from '../../../workflows/accounts/invitation-workflow.js';
import { invitationKey, invitationSha256, invitationToken } from './invitations.js';
import type { SweepSource } from '../../core/es/workflow.js';
import { usersTable } from '../../../projections/accounts/index.js';
import { invitationMailId } from '../../../workflows/accounts/invitation-workflow.js';

type InvitationActivityDeps = Pick<AppDeps, 'store' | 'blobs' | 'knex' | 'config' | 'now'>;

export function createInvitationMailActivities(deps: InvitationActivityDeps): ActivityImplementations<InvitationMailActivities> {
  return {
    async queueInvitationMail(_context, id, input) {
      const invited = await standingInvitation(deps, input.account_id, input.user_id);
      if (!invited) return 'superseded';
      const { stored, data: d } = invited;
      const mail = await invitationMessage(deps, {
        accountId: input.account_id,
        userId: input.user_id,
        email: d.email,
        name: d.name,
        role: d.role,
        expiresAt: new Date(d.expires_at),
        inviterUserId: await actingUserId(deps.knex, stored.metadata.actor),
      });
      if (mail.id !== id) return 'superseded';
      // For the invitation's request; the service acts.
      return queueOwedMail(deps, { mail, cause: stored }, 'invitation-mail-recovery');
    },
  };
}

type Invited = { stored: StoredEvent; data: Extract<EventOf<typeof accountEvents>, { type: 'UserInvited' }>['data'] };

/**
 * The UserInvited event of `userId` if its invitation still stands now: not accepted, the user
 * not removed, not expired, and its recorded token the one derived from the user id (an
 * invitation made before tokens were derived, D-100, has a link no one can rebuild).
 */
async function standingInvitation(deps: InvitationActivityDeps, accountId: string, userId: string): Promise<Invited | null> {
  const history = await deps.store.readStream(accountStream(accountId));
  let state = accountDecider.initialState();
  let invited: Invited | undefined;
  for (const stored of history) {
    const event = parseEvent(accountDecider.catalogue, stored);
    if (!event) continue;
    state = accountDecider.evolve(state, event);
    if (event.type === 'UserInvited' && event.data.user_id === userId) invited = { stored, data: event.data };
  }
  const invitation = state.users.get(userId)?.invitation;
  if (!invited || !invitation || deps.now().getTime() >= new Date(invitation.expiresAt).getTime()) return null;
  // Both digests are the service's own (no caller's input), compared in constant time all the same, as every token digest is.
  return sameHash(invitation.tokenSha256, invitationSha256(invitationToken(invitationKey(deps.config.DATA_DIR), userId))) ? invited : null;
}

/** Pending invitations (within their validity: at most 7 days) without a queued message: normally none (the use case queued them). */
export async function invitationMailSweep({ knex, now }: SweepSource) {
  const pending = await usersTable(knex).whereNull('password_hash').whereNotNull('invitation_sha256').andWhere('invitation_expires_at', '>', now).select('id', 'account_id');
  const queued = await queuedMailIds(knex, pending.map((u) => invitationMailId(u.id)));
  return pending.filter((u) => !queued.has(invitationMailId(u.id))).map((u) => ({ id: invitationMailId(u.id), input: { account_id: u.account_id, user_id: u.id } }));
}
