import type { Knex } from 'knex';
import { assertNever, parseEvent } from '../../src/core/es/events.js';
import { type Projector, unapplied } from '../../src/core/es/projector.js';
import { streamInstance } from '../../src/core/es/streams.js';
import type { StoredEvent } from '../../src/core/es/event-store.js';
import { verificationEvents } from '../../src/features/verifications/events.js';
import { shareEvents, shareViewEvents } from '../../src/features/sharing/events.js';
import { accessChangedMailId, invitationMailId } from './mail-ids.js';

/**
 * shares (one per shared verification, found by its token's hash), share_invites (found by the
 * invitation token's hash) and share_views (one row per verification, UTC day and visitor: the
 * counting rule). Disabling a share removes its invitations; deleting the verification removes
 * all three. Rows remember the position they reflect; deletions only remove older rows.
 * Each invitation row names the messages its address is owed (its invitation, and the notice of
 * the share's latest access change when it was invited before it): the share mail sweep
 * (workflows/sharing/workflow.ts) queues those the mail read model does not hold.
 */
export const sharesProjector: Projector = {
  name: 'shares',
  version: 2,
  tables: ['share_views', 'share_invites', 'shares'],
  async migrate(knex) {
    await knex.raw(`
      create table if not exists shares (
        verification_id uuid primary key,
        account_id uuid not null,
        access_type text not null,
        nonce text not null,
        token_sha256 text not null unique,
        enabled_at timestamptz not null,
        updated_at timestamptz not null,
        access_changes integer not null,
        last_position numeric(20, 0) not null
      )`);
    await knex.raw(`
      create table if not exists share_invites (
        verification_id uuid not null,
        email text not null,
        nonce text not null,
        token_sha256 text not null unique,
        invited_at timestamptz not null,
        mail_id text not null,
        access_mail_id text,
        access_changed_at timestamptz,
        last_position numeric(20, 0) not null,
        primary key (verification_id, email)
      )`);
    await knex.raw('create index if not exists share_invites_invited_at on share_invites (invited_at)');
    await knex.raw('create index if not exists share_invites_access_changed_at on share_invites (access_changed_at) where access_mail_id is not null');
    await knex.raw(`
      create table if not exists share_views (
        verification_id uuid not null,
        day text not null,
        visitor text not null,
        access text not null,
        first_viewed_at timestamptz not null,
        position numeric(20, 0) not null,
        primary key (verification_id, day, visitor)
      )`);
  },
  async apply(trx, stored) {
    if (stored.stream.startsWith('share-')) return applyShare(trx, stored);
    if (stored.stream.startsWith('shareviews-')) return applyView(trx, stored);
    if (stored.type === verificationEvents.VerificationDeleted.type) {
      const id = streamInstance('verification', stored.stream);
      await trx('share_views').where({ verification_id: id }).delete();
      await trx('share_invites').where({ verification_id: id }).delete();
      await trx('shares').where({ verification_id: id }).delete();
    }
  },
};

async function applyShare(trx: Knex.Transaction, stored: StoredEvent): Promise<void> {
  const event = parseEvent(shareEvents, stored);
  if (!event) return;
  const id = streamInstance('share', stored.stream);
  const position = stored.position.toString();
  const older = (table: string) => unapplied(trx, table, { verification_id: id }, position);
  switch (event.type) {
    case 'ShareEnabled': {
      const d = event.data;
      const existing = await trx('shares').where({ verification_id: id }).first();
      if (existing && BigInt(existing.last_position) >= stored.position) return;
      const row = {
        account_id: stored.metadata.account_id,
        access_type: d.access_type,
        nonce: d.nonce,
        token_sha256: d.token_sha256,
        enabled_at: d.enabled_at,
        updated_at: d.enabled_at,
        access_changes: 0,
        last_position: position,
      };
      if (existing) await trx('shares').where({ verification_id: id }).update(row);
      else await trx('shares').insert({ verification_id: id, ...row });
      return;
    }
    case 'ShareAccessChanged': {
      const share = await older('shares').first();
      if (!share) return;
      const changes = share.access_changes + 1;
      await older('shares').update({ access_type: event.data.to, updated_at: event.data.changed_at, access_changes: changes, last_position: position });
      // Every address invited before the change is told of it (the use case's rule, decider.ts accessChangesBefore).
      for (const { email } of await older('share_invites').select('email')) {
        await trx('share_invites')
          .where({ verification_id: id, email })
          .update({ access_mail_id: accessChangedMailId(id, share.nonce, changes, email), access_changed_at: event.data.changed_at, last_position: position });
      }
      return;
    }
    case 'ShareDisabled':
      await older('share_invites').delete();
      await older('shares').delete();
      return;
    case 'ShareInvited': {
      const d = event.data;
      await trx('share_invites')
        .insert({ verification_id: id, email: d.email, nonce: d.nonce, token_sha256: d.token_sha256, invited_at: d.invited_at, mail_id: invitationMailId(id, d.nonce), last_position: position })
        .onConflict(['verification_id', 'email'])
        .ignore();
      return;
    }
    case 'ShareInviteRevoked':
      await older('share_invites').andWhere({ email: event.data.email }).delete();
      return;
    default:
      assertNever(event);
  }
}

async function applyView(trx: Knex.Transaction, stored: StoredEvent): Promise<void> {
  const event = parseEvent(shareViewEvents, stored);
  if (!event) return;
  const d = event.data;
  // The key is the counting rule: a visitor's first view of the day counts, later ones do not.
  await trx('share_views')
    .insert({ verification_id: streamInstance('shareviews', stored.stream), day: d.day, visitor: d.visitor, access: d.access, first_viewed_at: d.viewed_at, position: stored.position.toString() })
    .onConflict(['verification_id', 'day', 'visitor'])
    .ignore();
}
