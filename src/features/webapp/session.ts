import crypto from 'node:crypto';
import type { AppDeps } from '../../core/deps.js';
import { AccessDeniedError, AuthenticationError } from '../../core/errors.js';
import type { Principal } from '../../core/principal.js';
import { resolveJwt } from '../accounts/index.js';

/**
 * The web app's session and CSRF design (docs/webapp.md). The session cookie holds
 * `<session id>.<access token>`: the access token is the API's own JWT from the login use case,
 * so every page resolves it exactly as a bearer token is resolved (the user read fresh, the
 * password epoch compared): a removed user or a changed password ends the session on the next
 * request. The random session id names this sign-in only (two sign-ins in one second get equal
 * JWTs); the CSRF token of every form is an HMAC of it, so a token is good for its session alone.
 */

export const SESSION_COOKIE = 'pv_app_session';
/** Before sign-in: the login form's own CSRF secret (login CSRF would sign a victim in as the attacker). */
export const LOGIN_COOKIE = 'pv_app_login';
export const CSRF_FIELD = 'csrf_token';

const SESSION_ID = /^[A-Za-z0-9_-]{22}$/;

export interface AppSession {
  principal: Principal;
  sessionId: string;
  /** The hidden field every form of this session carries. */
  csrfToken: string;
}

export const newSessionId = () => crypto.randomBytes(16).toString('base64url');

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

/** The signed-in session the cookie names, or null (no cookie, malformed, expired, user removed, password changed). */
export async function sessionOf(deps: AppDeps, cookieHeader: string | undefined): Promise<AppSession | null> {
  const value = cookieValue(cookieHeader, SESSION_COOKIE);
  const dot = value?.indexOf('.') ?? -1;
  if (!value || dot < 0) return null;
  const sessionId = value.slice(0, dot);
  if (!SESSION_ID.test(sessionId)) return null;
  try {
    const { principal } = await resolveJwt(deps, value.slice(dot + 1));
    return { principal, sessionId, csrfToken: csrfTokenFor(deps, 'session', sessionId) };
  } catch (error) {
    // An invalid, expired or revoked token is a signed-out browser, not an error page.
    if (error instanceof AuthenticationError) return null;
    throw error;
  }
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
