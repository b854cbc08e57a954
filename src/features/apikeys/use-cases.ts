import crypto from 'node:crypto';
import { commandContext, execute } from '../../core/es/commands.js';
import type { CommandContext } from '../../core/es/decider.js';
import type { AppDeps } from '../../core/module/deps.js';
import { AppError, NotFoundError } from '../../core/errors.js';
import { assertAccountAccess, callerOf, type Call, type Principal } from '../../core/principal.js';
import { categoryOf, type StreamReadRule } from '../../core/es/stream-read-rules.js';
import { apiKeyDecider, apiKeyStream } from './decider.js';
import type { ApiKeyScope } from './events.js';
import { generateApiKey } from './key-material.js';
import { findApiKey, findVisibleApiKey, listVisibleApiKeys, unrevokedApiKeysOfUser, visibleApiKeyIds, type VisibleKeys } from '../../../projections/apikeys/index.js';
import { toApiKey, type ApiKeyCreatedView, type ApiKeyView } from './view.js';

/**
 * Whose keys a caller manages (D-079): an admin every key of the account, a member only the keys
 * they created. An API key acts as its user, with the user's role as it is now.
 */
const keysManagedBy = (principal: Principal): VisibleKeys => ({
  accountId: principal.accountId,
  userId: principal.role === 'admin' ? null : principal.userId,
});

/**
 * Who may read a key's history through the audit door (`apikey-<id>`, issue 35): whoever sees the
 * key in the list above, by the same rule (a member their own keys, an admin every key of the account).
 */
export const apiKeyStreamReadRule: StreamReadRule = {
  category: categoryOf(apiKeyStream),
  visible: ({ knex, principal }) => visibleApiKeyIds(knex, keysManagedBy(principal)),
};

/** The keys the caller manages (active, expired and revoked), newest first; raw keys are never kept. */
export async function listApiKeys(deps: AppDeps, principal: Principal): Promise<ApiKeyView[]> {
  const rows = await listVisibleApiKeys(deps.knex, keysManagedBy(principal));
  const now = deps.now();
  return rows.map((row) => toApiKey(row, now));
}

export interface NewApiKey {
  account_id: string;
  description?: string | null;
  expires_in_days: number;
  scope: ApiKeyScope;
}

/** Creates a key for the calling user; the raw key is in this answer only (only its hash is recorded). */
export async function createApiKey(deps: AppDeps, call: Call, input: NewApiKey): Promise<ApiKeyCreatedView> {
  const principal = callerOf(call);
  assertAccountAccess(principal, input.account_id);
  const keyId = crypto.randomUUID();
  const key = generateApiKey();
  const context = commandContext(deps, call);
  await execute(deps, call, apiKeyStream(keyId), apiKeyDecider, {
    type: 'CreateApiKey',
    key_id: keyId,
    account_id: input.account_id,
    user_id: principal.userId,
    prefix: key.prefix,
    key_hash: key.hash,
    description: input.description ?? null,
    scope: input.scope,
    expires_in_days: input.expires_in_days,
    now: context.now,
  }, context);
  const row = await findApiKey(deps.knex, keyId);
  if (!row) throw new AppError('SERVICE_UNAVAILABLE', 'The API key was created but is not readable yet.', { suggestion: 'Retry the read shortly.' });
  const { is_active: _active, last_used_at: _used, updated_at: _updated, ...created } = toApiKey(row, deps.now());
  return { ...created, raw_key: key.raw };
}

/**
 * Revokes one of the keys the caller manages, permanently. Any other key (another user's for a
 * member, another account's for anyone) answers API_KEY_NOT_FOUND, as an unknown id does.
 */
export async function revokeApiKey(deps: AppDeps, call: Call, keyId: string): Promise<void> {
  const principal = callerOf(call);
  const row = await findVisibleApiKey(deps.knex, keyId, keysManagedBy(principal));
  if (!row) throw new NotFoundError('API_KEY_NOT_FOUND', 'API key not found.', { suggestion: 'List your keys with GET /v1/apikeys/.' });
  const context = commandContext(deps, call);
  await execute(deps, call, apiKeyStream(keyId), apiKeyDecider, { type: 'RevokeApiKey', account_id: principal.accountId, now: context.now }, context);
}

/**
 * Revokes every key of a user the account has removed (accounts' removal runs it in the same
 * call, under the removal's context), so the key list says so. Idempotent: revoked keys are not
 * listed again, so asking again after a crash revokes the rest.
 */
export async function revokeApiKeysOfUser(deps: AppDeps, call: Call, context: CommandContext, accountId: string, userId: string): Promise<void> {
  for (const key of await unrevokedApiKeysOfUser(deps.knex, userId)) {
    await execute(deps, call, apiKeyStream(key.id), apiKeyDecider, { type: 'RevokeApiKey', account_id: accountId, now: context.now }, context);
  }
}
