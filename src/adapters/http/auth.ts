import type { Request } from 'express';
import type { AppDeps } from '../../core/module/deps.js';
import { AccessDeniedError, AuthenticationError } from '../../core/errors.js';
import { assertMayChange, type Principal } from '../../core/principal.js';
import type { Authenticator } from '../../core/module/authenticator.js';
import type { AuthRequirement } from '../../core/http/route-spec.js';

/**
 * The caller the request's credentials (headers only) name, resolved by the authenticator the
 * credential belongs to (deps.authenticators, declared by the modules that issue credentials:
 * core/module/authenticator.ts); null when none are sent. Credentials that are sent but invalid are a
 * 401 wherever they arrive (REST and MCP alike).
 */
export async function credentialsOf(deps: AppDeps, req: Request): Promise<Principal | null> {
  const authorization = req.get('authorization')?.trim();
  const bearer = authorization?.match(/^Bearer\s+(\S+)$/i)?.[1];
  if (authorization && !bearer) {
    throw new AuthenticationError('INVALID_TOKEN', 'The Authorization header must be "Bearer <token>".', {
      suggestion: 'Send "Authorization: Bearer <JWT or API key>" or "X-API-Key: <API key>".',
    });
  }
  // A credential in an authenticator's own header wins over the Authorization header.
  for (const authenticator of deps.authenticators) {
    const credential = authenticator.header ? req.get(authenticator.header)?.trim() : undefined;
    if (credential) return resolveCredential(deps, authenticator, credential);
  }
  if (!bearer) return null;
  const authenticator =
    deps.authenticators.find((a) => a.bearerPrefix !== undefined && bearer.startsWith(a.bearerPrefix)) ?? deps.authenticators.find((a) => a.bearerPrefix === undefined);
  if (!authenticator) throw new AuthenticationError('INVALID_TOKEN', 'This service takes no bearer tokens.');
  return resolveCredential(deps, authenticator, bearer);
}

/** Resolves a REST caller, or throws 401/403. Public routes get the caller when credentials are sent. */
export async function authenticate(deps: AppDeps, req: Request, requirement: AuthRequirement): Promise<Principal | null> {
  if (requirement === 'ignored') return null;
  const principal = await credentialsOf(deps, req);
  if (!principal) {
    if (requirement === 'none') return null;
    throw new AuthenticationError('AUTHENTICATION_REQUIRED', 'This endpoint requires authentication.', {
      suggestion: 'Send "Authorization: Bearer <token>" from POST /v1/accounts/login, or an API key in "X-API-Key". Keyless verification is offered to agents over MCP at /mcp.',
    });
  }
  if (requirement === 'jwt' && principal.via !== 'jwt') {
    throw new AccessDeniedError('This endpoint requires a user session token, not an API key.', {
      suggestion: 'Log in with POST /v1/accounts/login and send the access_token as a bearer token.',
    });
  }
  if (!['GET', 'HEAD'].includes(req.method)) assertMayChange(principal);
  return principal;
}

/** A credential to its principal, through the short-lived cache (D-048). */
async function resolveCredential(deps: AppDeps, authenticator: Authenticator, credential: string): Promise<Principal> {
  const now = deps.now().getTime();
  const cached = deps.principals.get(credential, now);
  if (cached) return cached;
  const { principal, expiresAt } = await authenticator.resolve(deps, credential);
  deps.principals.set(credential, principal, now, expiresAt.getTime());
  return principal;
}
