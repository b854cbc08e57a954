import { accountEvents } from '../../src/features/accounts/events.js';
import { assertNever, parseEvent } from '../../src/core/es/events.js';
import { insertOnce, type Projector, unapplied } from '../../src/core/es/projector.js';

/**
 * accounts and users (an invited user has no password hash until they accept, and is found by
 * the invitation token's hash). Rows remember the last event position they reflect (idempotency guard).
 * A removed user's row is deleted: sessions and keys resolve their user here, so they stop at once.
 */
export const accountsProjector: Projector = {
  name: 'accounts',
  version: 2,
  tables: ['users', 'accounts'],
  async migrate(knex) {
    await knex.raw(`
      create table if not exists accounts (
        id uuid primary key,
        name text not null,
        plan text not null,
        billing_country text not null,
        monthly_budget_cap_eur numeric,
        created_at timestamptz not null,
        updated_at timestamptz not null,
        last_position numeric(20, 0) not null
      )`);
    await knex.raw(`
      create table if not exists users (
        id uuid primary key,
        account_id uuid not null references accounts(id),
        email text not null unique,
        name text not null,
        role text not null,
        password_hash text,
        password_changed_at timestamptz,
        invitation_sha256 text unique,
        invitation_expires_at timestamptz,
        created_at timestamptz not null,
        last_position numeric(20, 0) not null
      )`);
    await knex.raw('create index if not exists users_account on users (account_id)');
  },
  async apply(trx, stored) {
    const event = parseEvent(accountEvents, stored);
    if (!event) return;
    const position = stored.position.toString();
    switch (event.type) {
      case 'AccountRegistered': {
        const d = event.data;
        await insertOnce(trx, 'accounts', {
          id: d.account_id,
          name: d.name,
          plan: d.plan,
          billing_country: d.billing_country,
          monthly_budget_cap_eur: d.monthly_budget_cap_eur,
          created_at: d.registered_at,
          updated_at: d.registered_at,
          last_position: position,
        });
        return;
      }
      case 'AccountSettingsChanged': {
        const d = event.data;
        await unapplied(trx, 'accounts', { id: d.account_id }, position)
          .update({ plan: d.plan, billing_country: d.billing_country, monthly_budget_cap_eur: d.monthly_budget_cap_eur, updated_at: d.changed_at, last_position: position });
        return;
      }
      case 'UserAdded':
      case 'UserInvited': {
        // One row a user: added with a password, or invited (no password until the link is used).
        const d = event.data;
        const how =
          event.type === 'UserAdded'
            ? { password_hash: event.data.password_hash, created_at: event.data.added_at }
            : { password_hash: null, invitation_sha256: event.data.token_sha256, invitation_expires_at: event.data.expires_at, created_at: event.data.invited_at };
        await insertOnce(trx, 'users', { id: d.user_id, account_id: d.account_id, email: d.email, name: d.name, role: d.role, ...how, last_position: position });
        return;
      }
      case 'InvitationAccepted': {
        const d = event.data;
        await unapplied(trx, 'users', { id: d.user_id }, position)
          .update({ password_hash: d.password_hash, invitation_sha256: null, invitation_expires_at: null, last_position: position });
        return;
      }
      case 'UserRoleChanged': {
        const d = event.data;
        await unapplied(trx, 'users', { id: d.user_id }, position).update({ role: d.to, last_position: position });
        return;
      }
      case 'PasswordChanged': {
        const d = event.data;
        await unapplied(trx, 'users', { id: d.user_id }, position).update({ password_hash: d.password_hash, password_changed_at: d.changed_at, last_position: position });
        return;
      }
      case 'UserRemoved':
        await unapplied(trx, 'users', { id: event.data.user_id }, position).delete();
        return;
      case 'PasswordResetRequested':
        // The link's digest stays in the account's history: the reset folds it from there.
        return;
      case 'UserSessionsEnded':
        // The sessions' read model's (projections/accounts/sessions.ts); the user's row is unchanged.
        return;
      default:
        assertNever(event);
    }
  },
};
