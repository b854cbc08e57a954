import { z } from 'zod';
import type { LogRedaction } from '../core/http/log-redaction.js';
import { UnprocessableError } from '../core/errors.js';
import type { HandlerInput, Reply, RouteSpec } from '../core/http/route-spec.js';
import { route } from '../core/http/route-spec.js';
import { parsePart } from '../core/http/validation.js';
import { isResetToken, registerAccount, registerBody, requestPasswordReset, RESET_LINK_TTL_MS, resetPassword, startAppSession } from '../features/accounts/index.js';
import { selfServicePlans } from '../features/accounts/events.js';
import { includedPerMonth } from '../features/usage/index.js';
import { planNames } from './account-pages.js';
import type { AppContext } from './context.js';
import { formRefusal, refusalMessage } from './form-refusal.js';
import { formTextRefusal, readForm } from './form.js';
import { renderResetChoosePage, renderResetRequestPage, renderSignupPage, type SignupValues } from './front-door-pages.js';
import { assertCsrfToken, assertSameOrigin, cookieValue, csrfTokenFor, CSRF_FIELD, LOGIN_COOKIE, newLoginId, SESSION_COOKIE, sessionOf, setCookie } from './session.js';

/**
 * The front door (issue 39): what a browser that is not signed in can do besides signing in —
 * create an account (the API's registration: its body schema, its use case, its errors) and
 * reset a forgotten password through a mailed link. Every form is a signed-out form: the
 * sign-in page's cookie is its CSRF secret (login CSRF would sign a victim in as the attacker).
 */

const LOGIN_ID = /^[A-Za-z0-9_-]{22}$/;
export const RESET_PATH = '/app/password-reset';

type Input = HandlerInput<unknown, unknown, unknown, 'none'>;

/** What a signed-out form's POST is: to its page (no cookie yet), refused before its use case (shown again), or its fields. */
type SignedOutPost = { redirect: Reply } | { loginId: string; refused: UnprocessableError } | { loginId: string; form: Map<string, string> };

/** The signed-out page's cookie: the one the browser has, or a new one to set. */
export function signedOutId(input: Pick<Input, 'header'>): { loginId: string; setCookie: boolean } {
  const known = cookieValue(input.header('cookie'), LOGIN_COOKIE);
  return known && LOGIN_ID.test(known) ? { loginId: known, setCookie: false } : { loginId: newLoginId(), setCookie: true };
}

/**
 * A signed-out form's POST: the origin check, the page's cookie (without it, back to the page),
 * the form read (bytes that are not UTF-8 and text no API field takes are refusals to show), and
 * the CSRF token bound to the cookie.
 */
export async function readSignedOutForm(ctx: AppContext, input: Pick<Input, 'header' | 'rawBody'>, pagePath: string): Promise<SignedOutPost> {
  assertSameOrigin(input.header, ctx.publicOrigin);
  const loginId = cookieValue(input.header('cookie'), LOGIN_COOKIE);
  if (!loginId || !LOGIN_ID.test(loginId)) return { redirect: ctx.seeOther(pagePath) };
  let form: Map<string, string>;
  try {
    form = await readForm(input.rawBody(), input.header('content-type'));
  } catch (error) {
    if (error instanceof UnprocessableError && error.issues) return { loginId, refused: error };
    throw error;
  }
  assertCsrfToken(form.get(CSRF_FIELD), csrfTokenFor(ctx.deps, 'login', loginId));
  const textRefusal = formTextRefusal(form);
  return textRefusal ? { loginId, refused: textRefusal } : { loginId, form };
}

export function frontDoorRoutes(ctx: AppContext): RouteSpec[] {
  const { deps, appPath, cookies, serviceName, page, errorPage, seeOther } = ctx;
  const common = { tag: 'webapp', auth: 'none' as const, produces: 'text/html', errorPage };
  const cookieFor = (id: { loginId: string; setCookie: boolean }): Record<string, string> =>
    id.setCookie ? { 'Set-Cookie': setCookie(LOGIN_COOKIE, id.loginId, { ...cookies, maxAge: 3600 }) } : {};
  const formErrors = {
    400: { description: 'VALIDATION_ERROR: not a form (application/x-www-form-urlencoded), or larger than 64 KiB' },
    403: { description: 'ACCESS_DENIED: the form came from another site or without its token' },
  };
  const plans = selfServicePlans.map((id) => ({ id, label: `${planNames[id]}: ${includedPerMonth[id]} verifications with camera RAW a month included` }));
  const signupLabels = { name: 'Organisation name', plan: 'Plan', billing_country: 'Billing country', 'admin.email': 'Your e-mail address', 'admin.name': 'Your name', 'admin.password': 'Password' };

  const signupPage = (status: number, loginId: string, values: SignupValues, error?: string, headers: Record<string, string> = {}) =>
    page(status, (nonce) => renderSignupPage({ serviceName, nonce, appPath, csrfToken: csrfTokenFor(deps, 'login', loginId), values, plans, ...(error ? { error } : {}) }), { headers });
  const resetRequestPage = (status: number, loginId: string, extra: { email?: string; sent?: boolean; error?: string }, headers: Record<string, string> = {}) =>
    page(status, (nonce) => renderResetRequestPage({ serviceName, nonce, appPath, csrfToken: csrfTokenFor(deps, 'login', loginId), linkMinutes: RESET_LINK_TTL_MS / 60_000, ...extra }), { headers });
  // The link's token is in this page's address. The app's Referrer-Policy (same-origin) sends it
  // nowhere else, and the request log redacts it in a same-origin Referer (resetLinkRedaction).
  // Not no-referrer: Chromium then sends the form's POST with `Origin: null`, which the origin check refuses.
  const choosePage = (status: number, loginId: string, token: string, error?: string, headers: Record<string, string> = {}) =>
    page(status, (nonce) => renderResetChoosePage({ serviceName, nonce, appPath, csrfToken: csrfTokenFor(deps, 'login', loginId), action: `${appPath}/password-reset/${token}`, ...(error ? { error } : {}) }), { headers });

  return [
    route({
      ...common,
      method: 'get',
      path: '/app/signup',
      summary: 'The web app’s sign-up page (HTML): an account and its first admin',
      description: 'The fields of POST /v1/accounts as a form. A signed-in browser is sent on to its verifications.',
      responses: { 200: { description: 'The form', schema: z.string() }, 303: { description: 'Already signed in: to /app/verifications' } },
      handler: async (input) => {
        if (await sessionOf(deps, input.header('cookie'))) return seeOther(`${appPath}/verifications`);
        const id = signedOutId(input);
        return signupPage(200, id.loginId, {}, undefined, cookieFor(id));
      },
    }),
    route({
      ...common,
      method: 'post',
      path: '/app/signup',
      summary: 'Create an account and its admin, and sign in (an HTML form)',
      description:
        'Form fields (application/x-www-form-urlencoded): `account_name`, `name`, `email`, `password`, `plan`, `billing_country`, `csrf_token` (from the sign-up page, bound to its cookie). Read by POST /v1/accounts’s schema and registered by its use case, with its errors; success signs the new admin in (as POST /app/login does) and redirects to /app/verifications.',
      responses: {
        303: { description: 'Registered and signed in: to /app/verifications; without the page’s cookie, to the sign-up page' },
        409: { description: 'EMAIL_TAKEN: the form again, saying so' },
        422: { description: 'VALIDATION_ERROR: the form again, naming the field' },
        ...formErrors,
      },
      handler: async (input) => {
        const post = await readSignedOutForm(ctx, input, `${appPath}/signup`);
        if ('redirect' in post) return post.redirect;
        if ('refused' in post) return signupPage(422, post.loginId, {}, refusalMessage(post.refused, signupLabels));
        const f = (name: string) => post.form.get(name) ?? '';
        const values: SignupValues = { account_name: f('account_name'), name: f('name'), email: f('email'), plan: f('plan'), billing_country: f('billing_country') };
        try {
          const body = parsePart('body', registerBody, {
            name: f('account_name'),
            plan: f('plan') || undefined,
            billing_country: f('billing_country') || undefined,
            admin: { email: f('email').trim(), name: f('name'), password: f('password') },
          });
          await registerAccount(deps, input.call, body);
          const { secret } = await startAppSession(deps, input.call, { email: body.admin.email, password: body.admin.password });
          return seeOther(`${appPath}/verifications`, { 'Set-Cookie': setCookie(SESSION_COOKIE, secret, { ...cookies, maxAge: deps.config.APP_SESSION_ABSOLUTE_SECONDS }) });
        } catch (error) {
          const refusal = formRefusal(deps, error);
          if (!refusal) throw error;
          return signupPage(refusal.status, post.loginId, values, refusalMessage(refusal.error, signupLabels));
        }
      },
    }),
    route({
      ...common,
      method: 'get',
      path: RESET_PATH,
      summary: 'The web app’s “forgot your password” page (HTML)',
      description: `A form for the address to mail a reset link to. The link works once, for ${RESET_LINK_TTL_MS / 60_000} minutes.`,
      responses: { 200: { description: 'The form', schema: z.string() } },
      handler: async (input) => {
        const id = signedOutId(input);
        return resetRequestPage(200, id.loginId, {}, cookieFor(id));
      },
    }),
    route({
      ...common,
      method: 'post',
      path: RESET_PATH,
      summary: 'Mail a password reset link (an HTML form)',
      description:
        'Form fields: `email`, `csrf_token`. The answer is the same whether or not a user has that address (the page says a link was sent if one does). At most 5 requests an hour per address and client, and 20 per client; the link goes through the mail outbox or SMTP like every message.',
      responses: {
        200: { description: 'The page, saying a link was sent if an account uses the address', schema: z.string() },
        303: { description: 'Without the page’s cookie: to the page' },
        422: { description: 'VALIDATION_ERROR: the form again, saying so' },
        429: { description: 'RATE_LIMIT_EXCEEDED: the form again, saying when to try again' },
        ...formErrors,
      },
      handler: async (input) => {
        const post = await readSignedOutForm(ctx, input, `${appPath}/password-reset`);
        if ('redirect' in post) return post.redirect;
        if ('refused' in post) return resetRequestPage(422, post.loginId, { error: refusalMessage(post.refused, {}) });
        const email = (post.form.get('email') ?? '').trim();
        if (!z.email().max(254).safeParse(email).success) return resetRequestPage(422, post.loginId, { email: email.slice(0, 254), error: 'Enter the e-mail address you sign in with.' });
        try {
          await requestPasswordReset(deps, input.call, { email, resetPageUrl: `${deps.config.PUBLIC_BASE_URL}/app/password-reset` });
        } catch (error) {
          const refusal = formRefusal(deps, error);
          if (!refusal) throw error;
          return resetRequestPage(refusal.status, post.loginId, { email, error: refusalMessage(refusal.error, {}) });
        }
        return resetRequestPage(200, post.loginId, { email, sent: true });
      },
    }),
    route({
      ...common,
      method: 'get',
      path: '/app/password-reset/{token}',
      summary: 'The page a password reset link opens (HTML): the new password',
      description: 'The token is the link’s credential: the request log never shows it, and the page’s Referer goes to this origin only. Whether it is still valid is said when the form is sent.',
      params: z.strictObject({ token: z.string().max(200) }),
      responses: { 200: { description: 'The form', schema: z.string() }, 404: { description: 'RESET_LINK_NOT_FOUND: not a reset link at all' } },
      handler: async (input) => {
        const { token } = input.params as { token: string };
        if (!isResetToken(token)) return errorPage({ status: 404, code: 'RESET_LINK_NOT_FOUND', message: 'This is not a password reset link.', suggestion: 'Open the link in the e-mail as it is, or ask for a new one.' });
        const id = signedOutId(input);
        return choosePage(200, id.loginId, token, undefined, cookieFor(id));
      },
    }),
    route({
      ...common,
      method: 'post',
      path: '/app/password-reset/{token}',
      summary: 'Set a new password with a reset link (an HTML form)',
      description:
        'Form fields: `password`, `confirm`, `csrf_token`. Records the change (PasswordChanged), which ends every web app session and access token of the user, then redirects to the sign-in page. The link then works no more.',
      params: z.strictObject({ token: z.string().max(200) }),
      responses: {
        303: { description: 'Password set: to /app/login; without the page’s cookie, to the page' },
        404: { description: 'RESET_LINK_NOT_FOUND: used, replaced by a newer one, or never issued: the form again, saying so' },
        410: { description: 'RESET_LINK_EXPIRED: the form again, saying so' },
        422: { description: 'VALIDATION_ERROR: the passwords differ or are too short: the form again, saying so' },
        ...formErrors,
      },
      handler: async (input) => {
        const { token } = input.params as { token: string };
        // Back to the link's page only for a token of a link's shape: any other text never goes into a Location header (a byte no header may hold was a 500).
        const post = await readSignedOutForm(ctx, input, isResetToken(token) ? `${appPath}/password-reset/${token}` : `${appPath}/password-reset`);
        if ('redirect' in post) return post.redirect;
        if ('refused' in post) return choosePage(422, post.loginId, token, refusalMessage(post.refused, {}));
        const password = post.form.get('password') ?? '';
        if (password !== (post.form.get('confirm') ?? '')) return choosePage(422, post.loginId, token, 'The two passwords differ.');
        if (password.length < 10 || password.length > 200) return choosePage(422, post.loginId, token, 'Passwords need 10 to 200 characters.');
        try {
          await resetPassword(deps, input.call, { token, password });
        } catch (error) {
          const refusal = formRefusal(deps, error);
          if (!refusal) throw error;
          return choosePage(refusal.status, post.loginId, token, refusalMessage(refusal.error, {}));
        }
        return seeOther(`${appPath}/login?notice=password-reset`);
      },
    }),
  ];
}

/** A reset link's token wherever a URL has it (a request line, a Referer), as the request log may show it. */
const RESET_LINK = /(\/app\/password-reset\/)[^?#/]+/;
const withoutResetToken = (url: string): string => url.replace(RESET_LINK, '$1[redacted]');

/** The reset page's URLs without their token (the link is a credential: D-312). */
export const resetLinkRedaction: LogRedaction = {
  url: withoutResetToken,
  request(req) {
    const referer = req.headers?.referer;
    const inUrl = typeof req.url === 'string' && RESET_LINK.test(req.url);
    const inReferer = typeof referer === 'string' && RESET_LINK.test(referer);
    if (!inUrl && !inReferer) return req;
    return {
      ...req,
      ...(inUrl ? { url: withoutResetToken(req.url!), params: undefined } : {}),
      ...(inReferer ? { headers: { ...req.headers, referer: withoutResetToken(referer) } } : {}),
    };
  },
};
