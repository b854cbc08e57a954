import type { Request } from 'express';
import { errors as joseErrors, jwtVerify, SignJWT } from 'jose';
import { apiKeyDecider, apiKeyStream, KEY_USE_RECORD_INTERVAL_MS } from '../../features/apikeys/decider.js';
import type { ApiKeyScope } from '../../features/apikeys/events.js';
import type { UserRole } from '../../features/accounts/events.js';
import { handleCommand } from '../../core/decider.js';
import { anonymousAccountId, isAnonymousUserId } from '../../features/verifications/anonymous.js';
import { AccessDeniedError, AuthenticationError } from '../../core/errors.js';
import { hashApiKey, looksLikeApiKey, parseApiKey, sameHash } from '../../features/apikeys/key-material.js';
import type { ApiDeps } from '../../core/deps.js';

/**
 * 'none': public. 'any': JWT or API key. 'jwt': a user session only (e.g. creating API keys).
 * 'any_or_anonymous': also a keyless caller presenting its anonymous_user_id (reads of its own records).
 */
export type AuthRequirement = 'none' | 'any' | 'jwt' | 'any_or_anonymous';

export interface Principal {
  via: 'jwt' | 'api_key' | 'anonymous';
  userId: string;
  accountId: string;
  role: UserRole;
  keyId?: string;
  scope: ApiKeyScope;
}

const ISSUER = 'photoverify';
const AUDIENCE = 'photoverify-api';

export async function issueAccessToken(deps: ApiDeps, user: { id: string; account_id: string; role: UserRole }) {
  const issuedAt = Math.floor(deps.now().getTime() / 1000);
  const expiresAt = issuedAt + deps.config.JWT_TTL_SECONDS;
  const token = await new SignJWT({ acc: user.account_id, role: user.role })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setSubject(user.id)
    .setIssuer(ISSUER)
    .setAudience(AUDIENCE)
    .setIssuedAt(issuedAt)
    .setExpirationTime(expiresAt)
    .sign(deps.jwtSecret);
  return { token, expiresAt: new Date(expiresAt * 1000) };
}

/** Resolves the caller, or throws 401/403. Public routes get the caller when credentials are sent. */
export async function authenticate(deps: ApiDeps, req: Request, requirement: AuthRequirement): Promise<Principal | null> {
  const apiKeyHeader = req.get('x-api-key')?.trim();
  const authorization = req.get('authorization')?.trim();
  const bearer = authorization?.match(/^Bearer\s+(\S+)$/i)?.[1];
  if (authorization && !bearer) {
    throw new AuthenticationError('INVALID_TOKEN', 'The Authorization header must be "Bearer <token>".', {
      suggestion: 'Send "Authorization: Bearer <JWT or API key>" or "X-API-Key: <API key>".',
    });
  }
  if (!apiKeyHeader && !bearer) {
    if (requirement === 'none') return null;
    const anonymous = req.get('x-anonymous-user-id')?.trim();
    if (requirement === 'any_or_anonymous' && anonymous) return anonymousPrincipal(anonymous);
    throw new AuthenticationError('AUTHENTICATION_REQUIRED', 'This endpoint requires authentication.', {
      suggestion: 'Send "Authorization: Bearer <token>" from POST /v1/accounts/login, or an API key in "X-API-Key".',
    });
  }
  const principal = apiKeyHeader
    ? await principalFromApiKey(deps, apiKeyHeader)
    : looksLikeApiKey(bearer!)
      ? await principalFromApiKey(deps, bearer!)
      : await principalFromJwt(deps, bearer!);

  if (requirement === 'jwt' && principal.via !== 'jwt') {
    throw new AccessDeniedError('This endpoint requires a user session token, not an API key.', {
      suggestion: 'Log in with POST /v1/accounts/login and send the access_token as a bearer token.',
    });
  }
  if (principal.scope === 'read' && !['GET', 'HEAD'].includes(req.method)) {
    throw new AccessDeniedError('This API key has the read scope and cannot change anything.', {
      suggestion: 'Use an API key created with scope "full".',
    });
  }
  return principal;
}

export function anonymousPrincipal(anonymousUserId: string): Principal {
  if (!isAnonymousUserId(anonymousUserId)) {
    throw new AuthenticationError('INVALID_CREDENTIALS', 'The X-Anonymous-User-Id is not a valid anonymous_user_id.', {
      suggestion: 'Send the anonymous_user_id returned by your first keyless upload, unchanged.',
    });
  }
  const accountId = anonymousAccountId(anonymousUserId);
  return { via: 'anonymous', userId: accountId, accountId, role: 'member', scope: 'full' };
}

async function principalFromJwt(deps: ApiDeps, token: string): Promise<Principal> {
  let subject: string | undefined;
  try {
    const { payload } = await jwtVerify(token, deps.jwtSecret, { issuer: ISSUER, audience: AUDIENCE, algorithms: ['HS256'] });
    subject = payload.sub;
  } catch (error) {
    const expired = error instanceof joseErrors.JWTExpired;
    throw new AuthenticationError('INVALID_TOKEN', expired ? 'The access token has expired.' : 'The access token is not valid.', {
      suggestion: 'Log in again with POST /v1/accounts/login.',
    });
  }
  // The token names the user; the account and role are read fresh so changes apply at once.
  const user = subject ? await deps.knex('users').where({ id: subject }).first() : undefined;
  if (!user) throw new AuthenticationError('INVALID_TOKEN', 'The access token names no existing user.', { suggestion: 'Log in again.' });
  return { via: 'jwt', userId: user.id, accountId: user.account_id, role: user.role, scope: 'full' };
}

async function principalFromApiKey(deps: ApiDeps, raw: string): Promise<Principal> {
  const invalid = (message: string) =>
    new AuthenticationError('INVALID_API_KEY', message, { suggestion: 'Create a new key with POST /v1/apikeys/ (requires a login token).' });
  const parsed = parseApiKey(raw);
  if (!parsed) throw invalid('The API key is malformed.');
  const key = await deps.knex('api_keys').where({ prefix: parsed.prefix }).first();
  if (!key || !sameHash(key.key_hash, hashApiKey(raw))) throw invalid('The API key is not valid.');
  if (key.revoked_at) throw invalid('The API key has been revoked.');
  const now = deps.now();
  if (new Date(key.expires_at) <= now) throw invalid('The API key has expired.');
  const user = await deps.knex('users').where({ id: key.user_id }).first();
  if (!user) throw invalid('The API key belongs to no existing user.');
  await recordKeyUse(deps, key, now);
  return { via: 'api_key', userId: user.id, accountId: key.account_id, role: user.role, keyId: key.id, scope: key.scope };
}

/** Usage is telemetry: recorded at most once a minute per key, never failing the request. */
async function recordKeyUse(deps: ApiDeps, key: { id: string; account_id: string; last_used_at: Date | string | null }, now: Date): Promise<void> {
  if (key.last_used_at && now.getTime() - new Date(key.last_used_at).getTime() < KEY_USE_RECORD_INTERVAL_MS) return;
  const keyId = key.id;
  try {
    const outcome = await handleCommand(deps.store, apiKeyStream(keyId), apiKeyDecider, { type: 'RecordApiKeyUse', now }, {
      accountId: key.account_id,
      actor: { type: 'api_key', id: keyId },
      causationId: keyId,
      correlationId: keyId,
      processingRegion: deps.config.PROCESSING_REGION,
      now,
    });
    if (outcome.position !== null) deps.projections.poke();
  } catch (error) {
    deps.log.warn({ err: error, keyId }, 'could not record API key use');
  }
}
