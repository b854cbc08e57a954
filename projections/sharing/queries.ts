import type { Knex } from 'knex';
import type { AccessType } from '../../src/features/sharing/events.js';

/** Rows of the sharing read models (projection.ts owns the tables; this file names them once). */
export interface ShareRow {
  verification_id: string;
  account_id: string;
  access_type: AccessType;
  nonce: string;
  token_sha256: string;
  enabled_at: Date | string;
  updated_at: Date | string;
  /** ShareAccessChanged events since the share was enabled. */
  access_changes: number;
  last_position: string;
}

export interface InviteRow {
  verification_id: string;
  email: string;
  nonce: string;
  token_sha256: string;
  invited_at: Date | string;
  /** The invitation's message (projections/sharing/mail-ids.ts). */
  mail_id: string;
  /** The notice of the share's latest access change, when this address was invited before it. */
  access_mail_id: string | null;
  access_changed_at: Date | string | null;
  last_position: string;
}

export interface ViewRow {
  verification_id: string;
  /** YYYY-MM-DD, UTC. */
  day: string;
  visitor: string;
  access: 'link' | 'invitation';
  first_viewed_at: Date | string;
  position: string;
}

const shares = (knex: Knex) => knex<ShareRow>('shares');
const invites = (knex: Knex) => knex<InviteRow>('share_invites');
const views = (knex: Knex) => knex<ViewRow>('share_views');

export const findShare = (knex: Knex, verificationId: string): Promise<ShareRow | undefined> => shares(knex).where({ verification_id: verificationId }).first();

export const findShareByTokenHash = (knex: Knex, tokenSha256: string): Promise<ShareRow | undefined> => shares(knex).where({ token_sha256: tokenSha256 }).first();

/** A share's invitations, oldest first. */
export const invitesOf = (knex: Knex, verificationId: string): Promise<InviteRow[]> =>
  invites(knex).where({ verification_id: verificationId }).orderBy([{ column: 'invited_at' }, { column: 'email' }]);

export const findInvite = (knex: Knex, verificationId: string, email: string): Promise<InviteRow | undefined> =>
  invites(knex).where({ verification_id: verificationId, email }).first();

export const findInviteByTokenHash = (knex: Knex, verificationId: string, tokenSha256: string): Promise<InviteRow | undefined> =>
  invites(knex).where({ verification_id: verificationId, token_sha256: tokenSha256 }).first();

export const viewCounted = async (knex: Knex, verificationId: string, day: string, visitor: string): Promise<boolean> =>
  Boolean(await views(knex).where({ verification_id: verificationId, day, visitor }).first('visitor'));

/** Counted views per UTC day in [from, to] (inclusive, YYYY-MM-DD), days without views left out. */
export async function dailyViewCounts(knex: Knex, verificationId: string, from: string, to: string): Promise<Map<string, number>> {
  const rows = await views(knex)
    .where({ verification_id: verificationId })
    .andWhere('day', '>=', from)
    .andWhere('day', '<=', to)
    .groupBy('day')
    .select('day')
    .count<{ day: string; count: string | number }[]>('* as count');
  return new Map(rows.map((r) => [r.day, Number(r.count)]));
}

/** A message an invited address is owed: its invitation, or the notice of the share's latest access change. */
export interface OwedShareMail {
  mail_id: string;
  verification_id: string;
  email: string;
  kind: 'invitation' | 'access_changed';
}

/** The messages owed for invitations made, and access changes, since `since` (revoked invitations have no row). */
export async function owedShareMails(knex: Knex, since: Date): Promise<OwedShareMail[]> {
  const [invited, changed] = await Promise.all([
    invites(knex).where('invited_at', '>=', since).select('verification_id', 'email', 'mail_id'),
    invites(knex).whereNotNull('access_mail_id').andWhere('access_changed_at', '>=', since).select('verification_id', 'email', 'access_mail_id'),
  ]);
  return [
    ...invited.map((r) => ({ mail_id: r.mail_id, verification_id: r.verification_id, email: r.email, kind: 'invitation' as const })),
    ...changed.map((r) => ({ mail_id: r.access_mail_id!, verification_id: r.verification_id, email: r.email, kind: 'access_changed' as const })),
  ];
}
