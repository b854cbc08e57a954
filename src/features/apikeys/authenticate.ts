import { runCommand } from '../../core/es/decider.js';
import { systemContext } from '../../core/es/commands.js';
import type { AppDeps } from '../../core/module/deps.js';
import { AuthenticationError } from '../../core/errors.js';
import { sameHash } from '../../core/secrets.js';
import { apiKeyDecider, apiKeyStream, KEY_USE_RECORD_INTERVAL_MS } from './decider.js';
import { hashApiKey, parseApiKey } from './key-material.js';
import { findApiKeyByPrefix, type ApiKeyRow } from '../../../projections/apikeys/index.js';

/**
 * The key side of authenticating with an API key. The key stands for its user, with the user's
 * role as it is now: the accounts feature, which knows users, makes the principal
 * (accounts/api-key-principal.ts), so this feature needs nothing of accounts.
 */

/** 401 INVALID_API_KEY: what every unusable key answers, with why. */
export const invalidApiKey = (message: string) =>
  new AuthenticationError('INVALID_API_KEY', message, { suggestion: 'Create a new key with POST /v1/apikeys/ (requires a login token).' });

/** The row of a usable key (well formed, known, not revoked, not expired at `now`); 401 INVALID_API_KEY otherwise. */
export async function usableApiKey(deps: Pick<AppDeps, 'knex'>, raw: string, now: Date): Promise<ApiKeyRow> {
  const parsed = parseApiKey(raw);
  if (!parsed) throw invalidApiKey('The API key is malformed.');
  const key = await findApiKeyByPrefix(deps.knex, parsed.prefix);
  if (!key || !sameHash(key.key_hash, hashApiKey(raw))) throw invalidApiKey('The API key is not valid.');
  if (key.revoked_at) throw invalidApiKey('The API key has been revoked.');
  if (new Date(key.expires_at) <= now) throw invalidApiKey('The API key has expired.');
  return key;
}

/** Usage is telemetry: recorded at most once a minute per key, never failing the request. */
export async function recordApiKeyUse(deps: AppDeps, key: Pick<ApiKeyRow, 'id' | 'account_id' | 'last_used_at'>, now: Date): Promise<void> {
  if (key.last_used_at && now.getTime() - new Date(key.last_used_at).getTime() < KEY_USE_RECORD_INTERVAL_MS) return;
  const keyId = key.id;
  try {
    const context = systemContext(deps, { actor: { type: 'api_key', id: keyId }, correlationId: keyId, accountId: key.account_id });
    const outcome = await runCommand(deps.store, apiKeyStream(keyId), apiKeyDecider, { type: 'RecordApiKeyUse', now }, context);
    // Waited for (once a minute per key): the caller's next request, which may be served from
    // the credential cache at once, lists the key with this use.
    if (outcome.position !== null) await deps.readModels.waitFor(outcome.position, deps.config.READ_MODEL_WAIT_MS);
  } catch (error) {
    deps.log.warn({ err: error, keyId }, 'could not record API key use');
  }
}
