import type { AppDeps } from '../../core/module/deps.js';
import type { OutgoingMail } from '../mail/index.js';
import type { UserRole } from './events.js';
import { invitationMailId } from '../../../workflows/accounts/invitation-workflow.js';
import { invitationKey, invitationLink, invitationMail, invitationToken } from './invitations.js';
import { findAccount, findUser } from '../../../projections/accounts/index.js';

/**
 * The invitation e-mail as a message to queue: the use case (right after UserInvited) and the
 * recovery activity (invitation-activities.ts, after a crash between the two) build the same
 * message under the same id, with the same link (its token is derived from the user id).
 */

type MessageDeps = Pick<AppDeps, 'knex' | 'config'>;

/** What UserInvited records about the invitation, and who made it. */
export interface InvitationFacts {
  accountId: string;
  userId: string;
  email: string;
  name: string;
  role: UserRole;
  expiresAt: Date;
  inviterUserId: string | undefined;
}

export async function invitationMessage(deps: MessageDeps, f: InvitationFacts): Promise<OutgoingMail> {
  const [inviter, account] = await Promise.all([f.inviterUserId ? findUser(deps.knex, f.inviterUserId) : undefined, findAccount(deps.knex, f.accountId)]);
  const mail = invitationMail({
    serviceName: deps.config.SERVICE_NAME,
    // Generic words for an inviter or account no longer found (removed since, for a late message).
    inviterName: inviter?.name ?? 'An admin',
    accountName: account?.name ?? 'their account',
    inviteeName: f.name,
    role: f.role,
    link: invitationLink(deps.config.PUBLIC_BASE_URL, invitationToken(invitationKey(deps.config.DATA_DIR), f.userId)),
    expiresAt: f.expiresAt,
  });
  // One invitation per user id: a retry, or the sweep, queues nothing twice.
  return { id: invitationMailId(f.userId), to: f.email, ...mail, accountId: f.accountId };
}
