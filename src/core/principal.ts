import { AccessDeniedError } from './errors.js';

/** Roles of a user in an account (spec 2.6). */
export const userRoles = ['admin', 'member'] as const;
export type UserRole = (typeof userRoles)[number];

/** What an API key may do: everything its user may, or only read. */
export const apiKeyScopes = ['full', 'read'] as const;
export type ApiKeyScope = (typeof apiKeyScopes)[number];

/** Who is calling, however they authenticated (session token, API key, anonymous user id). */
export interface Principal {
  via: 'jwt' | 'api_key' | 'anonymous';
  userId: string;
  accountId: string;
  role: UserRole;
  keyId?: string;
  scope: ApiKeyScope;
}

/**
 * One use-case invocation, built by whichever door it came through (REST today; MCP tools,
 * HTML pages and background jobs use the same shape). Plain data: no transport in it.
 */
export interface Call {
  principal: Principal | null;
  /** Ties every event the call records to the request that caused it. */
  correlationId: string;
  /** The caller's network address, for per-address limits on keyless use. */
  clientAddress: string;
  /**
   * Set when a write's read models did not catch up within READ_MODEL_WAIT_MS. The answer
   * still goes out; the door says so (REST: `X-Read-Model-Stale: true`).
   */
  stale: boolean;
}

export function newCall(principal: Principal | null, correlationId: string, clientAddress: string): Call {
  return { principal, correlationId, clientAddress, stale: false };
}

/** Narrows a call whose route required authentication. */
export function callerOf(call: Call): Principal {
  if (!call.principal) throw new Error('This use case needs an authenticated caller; its route must require one.');
  return call.principal;
}

/** A user may see and act on their own account only (every feature's account-scoped use cases). */
export function assertAccountAccess(principal: Principal, accountId: string): void {
  if (principal.accountId !== accountId) throw new AccessDeniedError('You do not have access to this account.');
}

/**
 * The read scope's one rule, for every door: a read-scope key does nothing that changes anything.
 * REST applies it to every method but GET and HEAD, MCP to every tool not read-only, and a use
 * case whose read changes something (a PSD download spends one of the export's 5) to itself.
 * `action` names what was refused (absent: anything).
 */
export function assertMayChange(principal: Principal | null, action?: string): void {
  if (principal?.scope !== 'read') return;
  throw new AccessDeniedError(action ? `This API key has the read scope and cannot ${action}, which changes something.` : 'This API key has the read scope and cannot change anything.', {
    suggestion: 'Use an API key created with scope "full".',
  });
}
