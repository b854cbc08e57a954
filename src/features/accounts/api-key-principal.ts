import type { Authenticator } from '../../core/module/authenticator.js';
import type { AppDeps } from '../../core/module/deps.js';
import type { Principal } from '../../core/principal.js';
import { API_KEY_PREFIX, invalidApiKey, recordApiKeyUse, usableApiKey } from '../apikeys/index.js';
import { findUser } from '../../../projections/accounts/index.js';

/**
 * The principal an API key stands for, and when the key expires (callers that keep the
 * principal keep it no longer); 401 INVALID_API_KEY for anything unusable. A key acts as its
 * user with the user's role as it is now, so a removed user's keys stop working at once. Here,
 * not in apikeys, because users are this feature's: apikeys knows its keys' users by id only
 * and imports nothing of accounts (accounts is the higher of the two).
 */
export async function resolveApiKey(deps: AppDeps, raw: string): Promise<{ principal: Principal; expiresAt: Date }> {
  const now = deps.now();
  const key = await usableApiKey(deps, raw, now);
  const user = await findUser(deps.knex, key.user_id);
  if (!user) throw invalidApiKey('The API key belongs to no existing user.');
  await recordApiKeyUse(deps, key, now);
  return {
    principal: { via: 'api_key', userId: user.id, accountId: key.account_id, role: user.role, keyId: key.id, scope: key.scope },
    expiresAt: new Date(key.expires_at),
  };
}

/** API keys: sent in X-API-Key, or as a bearer token (told from a session token by their prefix). */
export const apiKeyAuthenticator: Authenticator = {
  name: 'API key',
  header: 'x-api-key',
  bearerPrefix: API_KEY_PREFIX,
  resolve: resolveApiKey,
};
