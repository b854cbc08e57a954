import crypto from 'node:crypto';
import { AuthenticationError } from '../../core/errors.js';
import type { Call, Principal } from '../../core/principal.js';

/**
 * Keyless callers hold an `anonymous_user_id`: a bearer secret handed out on their first
 * upload. Their records belong to a pseudo-account whose id is derived from the secret, so
 * the secret itself is never stored and cannot be recovered from anything the service keeps.
 */
const ANONYMOUS_ID = /^anon_[A-Za-z0-9_-]{43}$/;

export function newAnonymousUserId(): string {
  return `anon_${crypto.randomBytes(32).toString('base64url')}`;
}

export function isAnonymousUserId(value: string): boolean {
  return ANONYMOUS_ID.test(value);
}

/** A stable UUID (v8 layout) for the pseudo-account of an anonymous user. */
export function anonymousAccountId(anonymousUserId: string): string {
  const h = crypto.createHash('sha256').update(`photoverify-anonymous:${anonymousUserId}`).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-8${h.slice(13, 16)}-${((parseInt(h.slice(16, 17), 16) & 0x3) | 0x8).toString(16)}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}


/** The principal of a keyless caller presenting its anonymous_user_id. */
export function anonymousPrincipal(anonymousUserId: string): Principal {
  if (!isAnonymousUserId(anonymousUserId)) {
    throw new AuthenticationError('INVALID_CREDENTIALS', 'This is not a valid anonymous_user_id.', {
      suggestion: 'Pass the anonymous_user_id returned by your first keyless verification, unchanged.',
    });
  }
  const accountId = anonymousAccountId(anonymousUserId);
  return { via: 'anonymous', userId: accountId, accountId, role: 'member', scope: 'full' };
}

/**
 * Who reads: the key's account, or a keyless caller's anonymous user. Without either there is
 * nothing of theirs to read.
 */
export function readerOf(call: Call, anonymousUserId: string | undefined): Principal {
  if (call.principal) return call.principal;
  if (anonymousUserId) return anonymousPrincipal(anonymousUserId);
  throw new AuthenticationError('AUTHENTICATION_REQUIRED', 'Reading a verification needs an API key, or the anonymous_user_id of the keyless verification.', {
    suggestion: 'Pass the anonymous_user_id your keyless verify call returned, or configure the MCP client with "Authorization: Bearer <API key>".',
  });
}
