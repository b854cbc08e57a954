import type { Knex } from 'knex';
import type { ApiKeyScope } from './events.js';

/** A row of the api_keys read model (projection.ts owns the table). Never holds the raw key. */
export interface ApiKeyRow {
  id: string;
  prefix: string;
  key_hash: string;
  account_id: string;
  user_id: string;
  description: string | null;
  scope: ApiKeyScope;
  expires_at: Date | string;
  revoked_at: Date | string | null;
  last_used_at: Date | string | null;
  created_at: Date | string;
  updated_at: Date | string;
  last_position: string;
}

export const apiKeysTable = (knex: Knex) => knex<ApiKeyRow>('api_keys');

export const findApiKeyByPrefix = (knex: Knex, prefix: string): Promise<ApiKeyRow | undefined> => apiKeysTable(knex).where({ prefix }).first();
export const findApiKey = (knex: Knex, id: string): Promise<ApiKeyRow | undefined> => apiKeysTable(knex).where({ id }).first();

/** An account's keys (active, expired and revoked), newest first. */
export const listApiKeysOfAccount = (knex: Knex, accountId: string): Promise<ApiKeyRow[]> =>
  apiKeysTable(knex).where({ account_id: accountId }).orderBy('created_at', 'desc');

/** A key, only if it belongs to the account (others' keys stay invisible). */
export const findApiKeyOfAccount = (knex: Knex, id: string, accountId: string): Promise<ApiKeyRow | undefined> =>
  apiKeysTable(knex).where({ id, account_id: accountId }).first();

/** A user's keys not revoked yet, expired ones included. */
export const unrevokedApiKeysOfUser = (knex: Knex, userId: string): Promise<ApiKeyRow[]> => apiKeysTable(knex).where({ user_id: userId }).whereNull('revoked_at');
