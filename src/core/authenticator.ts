import type { AppDeps } from './deps.js';
import type { Principal } from './principal.js';

/**
 * One kind of credential a feature issues and resolves (session tokens, API keys). The HTTP
 * adapter (adapters/http/auth.ts) reads the request's headers and hands each credential to the
 * authenticator it belongs to, so it names no feature:
 * - a credential in an authenticator's own `header` is that authenticator's;
 * - a bearer token is the authenticator's whose `bearerPrefix` it starts with, else the one
 *   authenticator without a prefix (the composition root checks there is exactly one).
 */
export interface Authenticator {
  /** What it resolves, in words (start-up checks name it). */
  name: string;
  /** A request header whose value is always this kind of credential (lower case, e.g. "x-api-key"). */
  header?: string;
  /** Bearer tokens starting with this are this kind; absent for the fallback kind. */
  bearerPrefix?: string;
  /**
   * The principal the credential stands for and when it stops standing for it (the principal
   * cache keeps it no longer); throws an AuthenticationError (401) for an unusable credential.
   */
  resolve(deps: AppDeps, credential: string): Promise<{ principal: Principal; expiresAt: Date }>;
}

/** Fails at start unless bearer tokens route unambiguously: one fallback, distinct prefixes and headers. */
export function checkAuthenticators(authenticators: readonly Authenticator[]): void {
  const fallbacks = authenticators.filter((a) => a.bearerPrefix === undefined);
  if (authenticators.length > 0 && fallbacks.length !== 1) {
    throw new Error(`Exactly one authenticator must take bearer tokens without a prefix; got ${fallbacks.map((a) => a.name).join(', ') || 'none'}.`);
  }
  for (const key of ['bearerPrefix', 'header'] as const) {
    const values = authenticators.flatMap((a) => (a[key] === undefined ? [] : [a[key]]));
    const repeated = values.filter((value, i) => values.indexOf(value) !== i);
    if (repeated.length) throw new Error(`Two authenticators claim the same ${key}: ${repeated.join(', ')}.`);
  }
}
