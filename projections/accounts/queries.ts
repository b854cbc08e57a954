import type { Knex } from 'knex';
import type { Plan, UserRole } from '../../src/features/accounts/events.js';

/** Rows of the accounts read model (projection.ts owns the tables; this file names them once). */
export interface AccountRow {
  id: string;
  name: string;
  plan: Plan;
  billing_country: string;
  /** numeric: the driver returns a string. */
  monthly_budget_cap_eur: string | number | null;
  created_at: Date | string;
  updated_at: Date | string;
  last_position: string;
}

export interface UserRow {
  id: string;
  account_id: string;
  email: string;
  name: string;
  role: UserRole;
  /** null while the user's invitation is not accepted: no password logs them in. */
  password_hash: string | null;
  invitation_sha256: string | null;
  invitation_expires_at: Date | string | null;
  /** Sessions issued before it are no longer valid (src/features/accounts/sessions.ts). */
  password_changed_at: Date | string | null;
  created_at: Date | string;
  last_position: string;
}

export const accountsTable = (knex: Knex) => knex<AccountRow>('accounts');
export const usersTable = (knex: Knex) => knex<UserRow>('users');

export const findAccount = (knex: Knex, id: string): Promise<AccountRow | undefined> => accountsTable(knex).where({ id }).first();
export const findUser = (knex: Knex, id: string): Promise<UserRow | undefined> => usersTable(knex).where({ id }).first();
export const findUserByInvitation = (knex: Knex, tokenSha256: string): Promise<UserRow | undefined> => usersTable(knex).where({ invitation_sha256: tokenSha256 }).first();
export const findUserByEmail = (knex: Knex, email: string): Promise<UserRow | undefined> => usersTable(knex).where({ email }).first();

/** An account's users, oldest first. */
export const listUsersOfAccount = (knex: Knex, accountId: string): Promise<UserRow[]> => usersTable(knex).where({ account_id: accountId }).orderBy('created_at');

/** A row of the web app's sessions read model (sessions.ts owns the table). */
export interface AppSessionRow {
  id: string;
  token_sha256: string;
  account_id: string;
  user_id: string;
  password_changed_at: Date | string | null;
  started_at: Date | string;
  last_used_at: Date | string;
  ended_at: Date | string | null;
  /** signed_out, password_changed, user_removed or ended_by_operator. */
  end_reason: string | null;
}

/** The session whose cookie secret hashes to `tokenSha256`, ended or not. */
export async function findAppSessionByToken(knex: Knex, tokenSha256: string): Promise<AppSessionRow | undefined> {
  return knex('app_sessions').where({ token_sha256: tokenSha256 }).first();
}
