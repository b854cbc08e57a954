import type { Knex } from 'knex';
import { accountEvents, appSessionEvents } from '../../src/features/accounts/events.js';
import { assertNever, parseEvent } from '../../src/core/es/events.js';
import { type Projector, unapplied } from '../../src/core/es/projector.js';

/**
 * The web app's sessions (issue 36): one row per sign-in, found by the SHA-256 of the cookie's
 * secret. A session ends by its own sign-out, and by the account events that end every session
 * the user holds at that point of the log: a password change, the user's removal, an operator's
 * UserSessionsEnded. Whether a live row is still usable now (idle and absolute lifetimes) is the
 * resolver's question (src/features/accounts/app-sessions.ts): the lifetimes are settings, not
 * facts of the log. Rows remember the last event position they reflect (idempotency guard).
 */
/** Why a session ended (the `end_reason` column; queries.ts reads it). */
type AppSessionEndReason = 'signed_out' | 'password_changed' | 'user_removed' | 'ended_by_operator';

const TABLE = 'app_sessions';

export const appSessionsProjector: Projector = {
  name: 'app_sessions',
  version: 1,
  tables: [TABLE],
  async migrate(knex) {
    await knex.raw(`
      create table if not exists ${TABLE} (
        id uuid primary key,
        token_sha256 text not null unique,
        account_id uuid not null,
        user_id uuid not null,
        password_changed_at timestamptz,
        started_at timestamptz not null,
        last_used_at timestamptz not null,
        ended_at timestamptz,
        end_reason text,
        last_position numeric(20, 0) not null
      )`);
    await knex.raw(`create index if not exists ${TABLE}_user on ${TABLE} (user_id) where ended_at is null`);
  },
  async apply(trx, stored) {
    const position = stored.position.toString();
    const session = parseEvent(appSessionEvents, stored);
    if (session) {
      switch (session.type) {
        case 'AppSessionStarted': {
          const d = session.data;
          await trx(TABLE)
            .insert({
              id: d.session_id,
              token_sha256: d.token_sha256,
              account_id: d.account_id,
              user_id: d.user_id,
              password_changed_at: d.password_changed_at,
              started_at: d.started_at,
              last_used_at: d.started_at,
              last_position: position,
            })
            .onConflict('id')
            .ignore();
          return;
        }
        case 'AppSessionUsed':
          await unapplied(trx, TABLE, { id: session.data.session_id }, position).update({ last_used_at: session.data.used_at, last_position: position });
          return;
        case 'AppSessionSignedOut':
          await endLive(trx, { id: session.data.session_id }, position, session.data.signed_out_at, 'signed_out');
          return;
        default:
          assertNever(session);
      }
    }
    const account = parseEvent(accountEvents, stored);
    if (!account) return;
    switch (account.type) {
      case 'PasswordChanged':
        return endLive(trx, { user_id: account.data.user_id }, position, account.data.changed_at, 'password_changed');
      case 'UserRemoved':
        return endLive(trx, { user_id: account.data.user_id }, position, account.data.removed_at, 'user_removed');
      case 'UserSessionsEnded':
        return endLive(trx, { user_id: account.data.user_id }, position, account.data.ended_at, 'ended_by_operator');
      // The other account events start or end no session; a new one is a decision to make here.
      case 'AccountRegistered':
      case 'AccountSettingsChanged':
      case 'UserInvited':
      case 'InvitationAccepted':
      case 'UserAdded':
      case 'UserRoleChanged':
      // A reset link asked for ends nothing; using it is a PasswordChanged.
      case 'PasswordResetRequested':
        return;
      default:
        assertNever(account);
    }
  },
};

/** Ends the live sessions matching `key` that the event at `position` has not been applied to. */
async function endLive(trx: Knex.Transaction, key: Record<string, string>, position: string, at: string, reason: AppSessionEndReason): Promise<void> {
  await unapplied(trx, TABLE, key, position).whereNull('ended_at').update({ ended_at: at, end_reason: reason, last_position: position });
}
