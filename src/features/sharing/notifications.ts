import type { AppDeps } from '../../core/module/deps.js';
import type { EventActor } from '../../core/es/event-store.js';
import { findAccount, findUser } from '../accounts/index.js';
import { findApiKey } from '../apikeys/index.js';
import type { OutgoingMail } from '../mail/index.js';
import type { VerificationRow } from '../verifications/index.js';
import type { Invitation, ShareState } from './decider.js';
import type { AccessType } from './events.js';
import { accessChangedMail, invitationMail, type ShareMailFacts } from './mail.js';
import { accessChangedMailId, invitationMailId } from '../../../projections/sharing/index.js';
import { inviteUrl, linkKey, linkToken } from './tokens.js';

/**
 * The sharing notifications as messages to queue, built from the share stream's state: the
 * use cases (right after their command) and the recovery activity (activities.ts, after a crash
 * between the command and the queueing) build the same message under the same id.
 */

type NotificationDeps = Pick<AppDeps, 'knex' | 'config'>;
type Shared = Extract<ShareState, { status: 'shared' }>;

/** Who shared: the acting user's name and the owning account's name. */
export interface Sharer {
  name: string;
  account: string;
}

/** The sharer: the acting user's name (generic words for one no longer found) and the owning account's. */
export async function sharerOf(deps: NotificationDeps, userId: string | undefined, accountId: string): Promise<Sharer> {
  const [user, account] = await Promise.all([userId ? findUser(deps.knex, userId) : undefined, findAccount(deps.knex, accountId)]);
  return { name: user?.name ?? 'A user', account: account?.name ?? 'their account' };
}

/** The user an event's actor acted as (an API key acts for its user). */
export async function actingUser(deps: NotificationDeps, actor: EventActor): Promise<string | undefined> {
  if (actor.type === 'user') return actor.id;
  if (actor.type === 'api_key') return (await findApiKey(deps.knex, actor.id))?.user_id;
  return undefined;
}

/** The invitation of `email`, whose link carries its proof. */
export function invitationMessage(deps: NotificationDeps, row: VerificationRow, share: Shared, email: string, invitation: Invitation, sharer: Sharer): OutgoingMail {
  const mail = invitationMail(mailFacts(deps, row, sharer, email, personalLink(deps, row.id, share.nonce, invitation.nonce), share.accessType));
  return { id: invitationMailId(row.id, invitation.nonce), to: email, accountId: row.account_id, ...mail };
}

/** The notice of the share's latest access change to `email` (invited before it). */
export function accessChangedMessage(deps: NotificationDeps, row: VerificationRow, share: Shared, email: string, invitation: Invitation, sharer: Sharer): OutgoingMail {
  const mail = accessChangedMail(mailFacts(deps, row, sharer, email, personalLink(deps, row.id, share.nonce, invitation.nonce), share.accessType));
  return { id: accessChangedMailId(row.id, share.nonce, share.accessChanges, email), to: email, accountId: row.account_id, ...mail };
}

/** Invitations the share's latest access change is to be told to: those made before it (a later one's invitation said it all). */
export function toldOfAccessChange(share: Shared): [string, Invitation][] {
  if (share.accessChanges === 0) return [];
  return [...share.invitations].filter(([, invitation]) => invitation.accessChangesBefore < share.accessChanges);
}

function personalLink(deps: NotificationDeps, verificationId: string, shareNonce: string, invitationNonce: string): string {
  const key = linkKey(deps.config.DATA_DIR);
  return inviteUrl(deps.config.PUBLIC_BASE_URL, linkToken(key, 'share', verificationId, shareNonce), linkToken(key, 'invite', verificationId, invitationNonce));
}

function mailFacts(deps: NotificationDeps, row: VerificationRow, sharer: Sharer, recipient: string, link: string, accessType: AccessType): ShareMailFacts {
  return {
    serviceName: deps.config.SERVICE_NAME,
    sharerName: sharer.name,
    accountName: sharer.account,
    recipient,
    link,
    accessType,
    verification: {
      name: row.name,
      shortCode: row.short_code,
      createdAt: new Date(row.created_at),
      mode: row.verification_mode,
      status: row.status,
      assuranceLevel: row.assurance_level,
      verdict: row.verdict,
    },
  };
}
