import type { Authenticator } from './deps.js';

/**
 * The Authenticator contract lives beside AppDeps in deps.ts (each names the other: an
 * authenticator resolves with the deps, the deps carry every module's authenticators), so that the
 * two files make no cycle; this file checks a module list's authenticators.
 */
export type { Authenticator } from './deps.js';

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
