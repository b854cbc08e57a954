import type { Knex } from 'knex';
import type { EventActor } from '../../src/core/es/event-store.js';
import type { ApiKeyScope } from '../../src/features/apikeys/events.js';

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

/**
 * The keys a caller may see and revoke (D-079): every key of the account, or (userId set) only
 * those its user created. A key's account and user never change, so this read decides it.
 */
export interface VisibleKeys {
  accountId: string;
  userId: string | null;
}

const visible = (knex: Knex, keys: VisibleKeys) =>
  apiKeysTable(knex).where({ account_id: keys.accountId, ...(keys.userId === null ? {} : { user_id: keys.userId }) });

/** The visible keys (active, expired and revoked), newest first. */
export const listVisibleApiKeys = (knex: Knex, keys: VisibleKeys): Promise<ApiKeyRow[]> => visible(knex, keys).orderBy('created_at', 'desc');

/** The visible keys' ids, as text: the audit door's rule for `apikey-<id>` streams (use-cases.ts apiKeyStreamReadRule). */
export const visibleApiKeyIds = (knex: Knex, keys: VisibleKeys): Knex.QueryBuilder => visible(knex, keys).select(knex.raw('id::text'));

/** A key, only if it is visible (others' keys stay invisible: the caller cannot tell them from unknown ids). */
export const findVisibleApiKey = (knex: Knex, id: string, keys: VisibleKeys): Promise<ApiKeyRow | undefined> => visible(knex, keys).where({ id }).first();

/** A user's keys not revoked yet, expired ones included. */
export const unrevokedApiKeysOfUser = (knex: Knex, userId: string): Promise<ApiKeyRow[]> => apiKeysTable(knex).where({ user_id: userId }).whereNull('revoked_at');

/** The user an event's actor acted as (an API key acts for its user). */
export async function actingUserId(knex: Knex, actor: EventActor): Promise<string | undefined> {
  if (actor.type === 'user') return actor.id;
  if (actor.type === 'api_key') return (await findApiKey(knex, actor.id))?.user_id;
  return undefined;
}
