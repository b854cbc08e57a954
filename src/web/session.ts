import crypto from 'node:crypto';
import type { AppDeps } from '../core/module/deps.js';
import { AccessDeniedError } from '../core/errors.js';
import type { Call, Principal } from '../core/principal.js';
import { resolveAppSession } from '../features/accounts/index.js';

/**
 * The web app's session cookie and CSRF design (docs/webapp.md). The session cookie holds an
 * opaque secret only: the session itself is server-side (accounts' app-sessions.ts: stored as
 * the secret's SHA-256, bound to the user and account, ended by sign-out, a password change, the
 * user's removal or an operator, with idle and absolute lifetimes). It is no API credential: no
 * JWT rides in it. The CSRF token of every form is an HMAC of the session's id, so a token is
 * good for its session alone.
 */

export const SESSION_COOKIE = 'pv_app_session';
/** Before sign-in: the login form's own CSRF secret (login CSRF would sign a victim in as the attacker). */
export const LOGIN_COOKIE = 'pv_app_login';
export const CSRF_FIELD = 'csrf_token';

export interface AppSession {
  principal: Principal;
  sessionId: string;
  /** The hidden field every form of this session carries. */
  csrfToken: string;
}

/** The sign-in form's cookie: 16 random bytes (the form's CSRF secret, no session). */
/** A use case's call as the signed-in user: the page's session stands in for the API's bearer token. */
export const asSessionUser = (call: Call, session: AppSession): Call => ({ ...call, principal: session.principal });

export const newLoginId = () => crypto.randomBytes(16).toString('base64url');

/** HMAC under a key derived from the service's JWT secret, labelled so it is no other MAC's value. */
export function csrfTokenFor(deps: AppDeps, purpose: 'session' | 'login', id: string): string {
  return crypto.createHmac('sha256', deps.jwtSecret).update(`webapp-csrf\n${purpose}\n${id}`).digest('base64url');
}

export function cookieValue(cookieHeader: string | undefined, name: string): string | undefined {
  for (const part of cookieHeader?.split(';') ?? []) {
    const at = part.indexOf('=');
    if (at > 0 && part.slice(0, at).trim() === name) return part.slice(at + 1).trim();
  }
  return undefined;
}

/** The signed-in session the cookie names, or null (no cookie, unknown or forged, signed out, ended, expired). */
export async function sessionOf(deps: AppDeps, cookieHeader: string | undefined): Promise<AppSession | null> {
  const value = cookieValue(cookieHeader, SESSION_COOKIE);
  if (!value) return null;
  const session = await resolveAppSession(deps, value);
  return session && { ...session, csrfToken: csrfTokenFor(deps, 'session', session.sessionId) };
}

export interface CookieOptions {
  /** `${base path}/app`: the cookies go to the app's pages only, never to the API. */
  path: string;
  secure: boolean;
}

export function setCookie(name: string, value: string, options: CookieOptions & { maxAge: number }): string {
  return `${name}=${value}; Path=${options.path}; Max-Age=${options.maxAge}; HttpOnly; SameSite=Strict${options.secure ? '; Secure' : ''}`;
}

export const clearCookie = (name: string, options: CookieOptions) => setCookie(name, '', { ...options, maxAge: 0 });

const refused = (why: string) => new AccessDeniedError(`This form was not accepted: ${why}.`, { suggestion: 'Reload the page and send the form again.' });

/**
 * A POST is accepted only from this site: a browser's Sec-Fetch-Site (when sent) must say
 * same-origin, and its Origin (when sent) must be the service's public origin or the host the
 * request was addressed to. Clients that send neither still need the form's token.
 */
export function assertSameOrigin(header: (name: string) => string | undefined, publicOrigin: string): void {
  const site = header('sec-fetch-site');
  if (site !== undefined && site !== 'same-origin') throw refused('it came from another site');
  const origin = header('origin');
  if (origin === undefined) return;
  let host: string;
  try {
    host = new URL(origin).host;
  } catch {
    throw refused('it came from another site');
  }
  if (origin !== publicOrigin && host !== header('host')) throw refused('it came from another site');
}

/** The form's token must be the one this session's (or login form's) secret gives; compared in constant time. */
export function assertCsrfToken(given: string | undefined, expected: string): void {
  const a = Buffer.from(given ?? '');
  const b = Buffer.from(expected);
  if (a.length !== b.length || !crypto.timingSafeEqual(a, b)) throw refused('its security token is missing or belongs to another session');
}
