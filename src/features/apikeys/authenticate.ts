import { runCommand } from '../../core/decider.js';
import { systemContext } from '../../core/commands.js';
import type { AppDeps } from '../../core/deps.js';
import { AuthenticationError } from '../../core/errors.js';
import type { Principal } from '../../core/principal.js';
import { findUser } from '../accounts/queries.js';
import { apiKeyDecider, apiKeyStream, KEY_USE_RECORD_INTERVAL_MS } from './decider.js';
import { hashApiKey, parseApiKey, sameHash } from './key-material.js';
import { findApiKeyByPrefix } from './queries.js';

/**
 * The principal an API key stands for, and when the key expires (callers that keep the
 * principal keep it no longer); 401 INVALID_API_KEY for anything unusable.
 */
export async function resolveApiKey(deps: AppDeps, raw: string): Promise<{ principal: Principal; expiresAt: Date }> {
  const invalid = (message: string) =>
    new AuthenticationError('INVALID_API_KEY', message, { suggestion: 'Create a new key with POST /v1/apikeys/ (requires a login token).' });
  const parsed = parseApiKey(raw);
  if (!parsed) throw invalid('The API key is malformed.');
  const key = await findApiKeyByPrefix(deps.knex, parsed.prefix);
  if (!key || !sameHash(key.key_hash, hashApiKey(raw))) throw invalid('The API key is not valid.');
  if (key.revoked_at) throw invalid('The API key has been revoked.');
  const now = deps.now();
  if (new Date(key.expires_at) <= now) throw invalid('The API key has expired.');
  const user = await findUser(deps.knex, key.user_id);
  if (!user) throw invalid('The API key belongs to no existing user.');
  await recordKeyUse(deps, key, now);
  return {
    principal: { via: 'api_key', userId: user.id, accountId: key.account_id, role: user.role, keyId: key.id, scope: key.scope },
    expiresAt: new Date(key.expires_at),
  };
}

/** Usage is telemetry: recorded at most once a minute per key, never failing the request. */
async function recordKeyUse(deps: AppDeps, key: { id: string; account_id: string; last_used_at: Date | string | null }, now: Date): Promise<void> {
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
