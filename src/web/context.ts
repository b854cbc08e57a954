import { publicBasePath } from '../core/config.js';
import type { AppDeps } from '../core/module/deps.js';
import type { ErrorPageInput, HandlerInput, Reply } from '../core/http/route-spec.js';
import { findAccount, findUser } from '../features/accounts/index.js';
import { readForm, underFormTextRule } from './form.js';
import { renderAppErrorPage } from './pages.js';
import { assertCsrfToken, assertSameOrigin, CSRF_FIELD, sessionOf, type AppSession, type CookieOptions } from './session.js';
import { appPageHeaders, newNonce, type Viewer } from './shell.js';

/**
 * What every page of the app needs, built once per service (docs/webapp.md): where the app
 * lives, how a page is sent (hardening headers, a fresh nonce), how a signed-out browser is
 * sent to sign in, and how a form is accepted (same origin, the session's CSRF token). Each
 * section of the app (verifications, upload, account, …) takes this and returns its routes.
 */
export interface AppContext {
  deps: AppDeps;
  /** `${base path}/app`. */
  appPath: string;
  /** The public base URL's origin, for the form origin check. */
  publicOrigin: string;
  cookies: CookieOptions;
  serviceName: string;
  /**
   * An HTML reply: `render` gets the page's nonce. `script: true` lets scripts under that nonce
   * run and fetch from this origin (the only pages that need one say so).
   */
  page(status: number, render: (nonce: string) => string, options?: { headers?: Record<string, string>; script?: boolean }): Reply;
  /** The app's error page (every app route's `errorPage`). */
  errorPage(error: ErrorPageInput): Reply;
  /** The header's account and user names, and the session's CSRF token. */
  viewerOf(session: AppSession): Promise<Viewer>;
  /** A page behind sign-in: the session, or a redirect to the sign-in page. */
  signedIn<B, Q, P>(handler: (input: HandlerInput<B, Q, P, 'none'>, session: AppSession) => Promise<Reply>): (input: HandlerInput<B, Q, P, 'none'>) => Promise<Reply>;
  /**
   * A form POST behind sign-in: the origin check, the form read (urlencoded, 64 KiB, strict
   * UTF-8), the session's CSRF token checked; then the handler with the form's fields, under the
   * JSON fields' text rule (form.ts underFormTextRule).
   */
  formAction<B, Q, P>(handler: (input: HandlerInput<B, Q, P, 'none'>, session: AppSession, form: Map<string, string>) => Promise<Reply>): (input: HandlerInput<B, Q, P, 'none'>) => Promise<Reply>;
  /** A 303 redirect (after a form, or to sign in). */
  seeOther(location: string, headers?: Record<string, string>): Reply;
}

export const seeOther = (location: string, headers: Record<string, string> = {}): Reply => ({ status: 303, headers: { Location: location, 'Cache-Control': 'no-store', ...headers } });

export function appContext(deps: AppDeps): AppContext {
  const base = new URL(deps.config.PUBLIC_BASE_URL);
  const appPath = `${publicBasePath(deps.config)}/app`;
  const publicOrigin = base.origin;
  const serviceName = deps.config.SERVICE_NAME;

  const page: AppContext['page'] = (status, render, options = {}) => {
    const nonce = newNonce();
    return { status, headers: { ...appPageHeaders(nonce, { script: options.script ?? false }), ...options.headers }, html: render(nonce) };
  };

  const signedIn: AppContext['signedIn'] = (handler) => async (input) => {
    const session = await sessionOf(deps, input.header('cookie'));
    return session ? handler(input, session) : seeOther(`${appPath}/login`);
  };

  return {
    deps,
    appPath,
    publicOrigin,
    cookies: { path: appPath, secure: base.protocol === 'https:' },
    serviceName,
    page,
    errorPage: (error) => page(error.status, (nonce) => renderAppErrorPage({ ...error, serviceName, nonce, appPath })),
    async viewerOf(session) {
      const [account, user] = await Promise.all([findAccount(deps.knex, session.principal.accountId), findUser(deps.knex, session.principal.userId)]);
      return { accountName: account?.name ?? '', userName: user?.name || user?.email || '', csrfToken: session.csrfToken };
    },
    signedIn,
    formAction: (handler) =>
      signedIn(async (input, session) => {
        assertSameOrigin(input.header, publicOrigin);
        const form = await readForm(input.rawBody(), input.header('content-type'));
        assertCsrfToken(form.get(CSRF_FIELD), session.csrfToken);
        return underFormTextRule(form, () => handler(input, session, form));
      }),
    seeOther,
  };
}
