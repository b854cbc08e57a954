import crypto from 'node:crypto';
import type { AppDeps } from '../../src/core/module/deps.js';
import { csrfTokenFor } from '../../src/web/session.js';
import { appRequest, cookieFrom, csrfIn } from '../support/webapp.js';

/**
 * The matrix's browsers (issue 27, must-work 4): the web app under /app takes its session
 * cookie only, so each caller reaches the app's pages as a browser would. A user of an account
 * signs in through the sign-in form (its cookie and CSRF token, then POST /app/login) and
 * sends the session cookie, and on a form the session's CSRF token from its pages; every other
 * caller is a browser that opened the sign-in page and holds no session (or one that has ended).
 */

export interface Browser {
  /** Whether the service must see a signed-in user now (false: no session, or one that ended). */
  readonly signedIn: boolean;
  /** The Cookie header it sends: the sign-in page's cookie, and its session's once signed in. */
  readonly cookie: string;
  /** The CSRF token its forms carry: its session's (from a page it was shown), else none. */
  readonly csrf: string;
  /** The sign-in form's token (bound to the sign-in page's cookie). */
  readonly loginCsrf: string;
  /** The session cookie's secret (a secret of its account), when it holds one. */
  readonly token?: string;
  /**
   * Before each page: sign in again when the session was ended on purpose (the user's password
   * changed by the matrix's own PUT /v1/accounts/me/password, or the browser signed out).
   */
  ready(): Promise<void>;
  /** After each answer: a cleared session cookie (sign-out) is dropped, as a browser drops it. */
  saw(setCookies: string[]): void;
}

interface SignInPage {
  loginCookie: string;
  loginCsrf: string;
}

async function openSignIn(baseUrl: string): Promise<SignInPage> {
  const page = await appRequest(baseUrl, 'GET', '/app/login');
  const loginCookie = cookieFrom(page, 'pv_app_login');
  if (page.status !== 200 || !loginCookie) throw new Error(`the sign-in page answered ${page.status}`);
  return { loginCookie, loginCsrf: csrfIn(page.text) };
}

interface Session {
  cookie: string;
  csrf: string;
  token: string;
}

/** The sign-in form sent as a browser sends it; the session's CSRF token read from the page it is sent on to. */
async function signIn(baseUrl: string, page: SignInPage, email: string, password: string): Promise<Session> {
  const origin = new URL(baseUrl).origin;
  const answer = await appRequest(baseUrl, 'POST', '/app/login', {
    cookie: page.loginCookie,
    form: { csrf_token: page.loginCsrf, email, password },
    headers: { origin, 'sec-fetch-site': 'same-origin' },
  });
  const session = cookieFrom(answer, 'pv_app_session');
  if (answer.status !== 303 || !session) throw new Error(`the app's sign-in of ${email} answered ${answer.status}: ${answer.text.slice(0, 200)}`);
  const cookie = `${page.loginCookie}; ${session}`;
  const next = await appRequest(baseUrl, 'GET', answer.location!, { cookie });
  if (next.status !== 200) throw new Error(`the first page after sign-in answered ${next.status}`);
  return { cookie, csrf: csrfIn(next.text), token: session.slice(session.indexOf('=') + 1) };
}

/** A user's browser, signed in now. `login` is read at each page: the matrix may change the password (and signs in again with the new one). */
export async function userBrowser(baseUrl: string, login: { email: string; password: string }): Promise<Browser> {
  const page = await openSignIn(baseUrl);
  let password = login.password;
  let session = await signIn(baseUrl, page, login.email, password);
  let signedOut = false;
  return {
    signedIn: true,
    get cookie() {
      return signedOut ? page.loginCookie : session.cookie;
    },
    get csrf() {
      return session.csrf;
    },
    loginCsrf: page.loginCsrf,
    get token() {
      return session.token;
    },
    async ready() {
      if (!signedOut && password === login.password) return;
      password = login.password;
      session = await signIn(baseUrl, page, login.email, password);
      signedOut = false;
    },
    saw(setCookies) {
      if (setCookies.some((c) => /^pv_app_session=;/.test(c))) signedOut = true;
    },
  };
}

/**
 * A user's browser whose session is about to end (the user removed, the token left to expire):
 * signed in now, it keeps sending the cookie and the token it was given.
 */
export async function endingBrowser(baseUrl: string, login: { email: string; password: string }): Promise<Browser> {
  const page = await openSignIn(baseUrl);
  const session = await signIn(baseUrl, page, login.email, login.password);
  return fixedBrowser(session.cookie, session.csrf, page.loginCsrf, session.token);
}

/** A browser with no session: it opened the sign-in page (and sends whatever header credentials its caller holds). */
export async function signedOutBrowser(baseUrl: string): Promise<Browser> {
  const page = await openSignIn(baseUrl);
  return fixedBrowser(page.loginCookie, '', page.loginCsrf);
}

/**
 * A browser whose session cookie was never the service's: a random session id and a JWT that is
 * not the service's (forged, alg=none), the cookie's shape before issue 36, with the CSRF token
 * the service would derive for that id. Only a session the service started opens the app.
 */
export async function forgedBrowser(baseUrl: string, deps: AppDeps, token: string): Promise<Browser> {
  const page = await openSignIn(baseUrl);
  const sessionId = crypto.randomBytes(16).toString('base64url');
  return fixedBrowser(`${page.loginCookie}; pv_app_session=${sessionId}.${token}`, csrfTokenFor(deps, 'session', sessionId), page.loginCsrf);
}

function fixedBrowser(cookie: string, csrf: string, loginCsrf: string, token?: string): Browser {
  return { signedIn: false, cookie, csrf, loginCsrf, token, ready: async () => {}, saw: () => {} };
}
