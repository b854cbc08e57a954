import { z } from 'zod';
import { AppError, UnprocessableError } from '../core/errors.js';
import type { RouteSpec } from '../core/http/route-spec.js';
import { route } from '../core/http/route-spec.js';
import { parsePart } from '../core/http/validation.js';
import { signOutAppSession, startAppSession } from '../features/accounts/index.js';
import { listQuery, listVerifications, verificationIdParam } from '../features/verifications/index.js';
import { verificationStatuses } from '../features/verifications/events.js';
import { seeOther, type AppContext } from './context.js';
import { listItemsOf, requestOrNull } from './list-items.js';
import { renderListPage, renderLoginPage } from './pages.js';
import { verificationPage } from './verification-page.js';
import { clearCookie, csrfTokenFor, LOGIN_COOKIE, SESSION_COOKIE, sessionOf, setCookie } from './session.js';
import { readSignedOutForm, signedOutId } from './front-door-routes.js';

/**
 * The web app's routes under /app (docs/webapp.md). Pages for a browser: public as far as the
 * REST door is concerned (auth 'none'), each resolves the session cookie itself and sends a
 * signed-out browser to the sign-in page. Every page calls the use case its REST route calls.
 */

const PAGE_SIZE = '20';

/** The list page's query as a browser's form sends it: an empty field means "any" (the API's schema then checks the rest). */
const appListQuery = z.strictObject({
  search: z.string().max(200).optional(),
  status: z.string().max(200).optional(),
  assurance_level: z.string().max(200).optional().describe('The level the pills show, one or several (comma-separated), as GET /v1/verifications takes it; a failed verification (its own grey state) is never listed under a level'),
  tags: z.string().max(1000).optional(),
  request_id: z.string().max(100).optional().describe('Only the submissions to this verification request (as GET /v1/verifications takes it)'),
  sort_by: z.string().max(40).optional().describe('As GET /v1/verifications takes it: created_at (default), updated_at, status'),
  sort_order: z.string().max(10).optional().describe('asc or desc (default)'),
  offset: z.string().max(12).optional(),
  notice: z.enum(['deleted']).optional().describe('What the form that led here did (a code the page words): deleted'),
});

/**
 * The verification page's query: what its sections read (a comment opened for editing). Unknown
 * parameters are dropped, not refused: a section's link may carry one another section ignores.
 */
const verificationPageQuery = z.object({
  edit: z.string().max(100).optional().describe('A comment to show with its edit form (its author’s only)'),
  notice: z.string().max(40).optional().describe('What a section’s form just did (a code the section words; others ignore it)'),
});

export function webappRoutes(ctx: AppContext): RouteSpec[] {
  const { deps, appPath, cookies, serviceName, page, errorPage, viewerOf, signedIn, formAction } = ctx;
  const listSchema = listQuery(deps.extensions);

  /** A form refusal's issues in words for the sign-in page. */
  const refusalWords = (error: UnprocessableError) =>
    (error.issues ?? []).map((issue) => `The ${String(issue.loc.length > 1 ? issue.loc.at(-1) : 'form')} was not accepted: ${issue.msg}`).join(' ');
  const loginPage = (status: number, loginId: string, extra: { email?: string; error?: string; notice?: 'signed-out' | 'password-reset' } = {}, headers: Record<string, string> = {}) =>
    page(status, (nonce) => renderLoginPage({ serviceName, nonce, appPath, csrfToken: csrfTokenFor(deps, 'login', loginId), ...extra }), { headers });

  return [
    route({
      method: 'get',
      path: '/app',
      tag: 'webapp',
      summary: 'The web app (HTML): to the verifications, or to sign-in',
      auth: 'none',
      produces: 'text/html',
      errorPage,
      responses: { 303: { description: 'To /app/verifications (signed in) or /app/login' } },
      handler: signedIn(async () => seeOther(`${appPath}/verifications`)),
    }),
    route({
      method: 'get',
      path: '/app/login',
      tag: 'webapp',
      summary: 'The web app’s sign-in page (HTML)',
      description: 'A form for the e-mail address and password of a user of an account. Sets a short-lived cookie whose secret the form’s CSRF token is derived from. A signed-in browser is sent on to its verifications.',
      auth: 'none',
      produces: 'text/html',
      errorPage,
      query: z.object({ notice: z.enum(['signed-out', 'password-reset']).optional().describe('What led here (a code the page words): signed-out, password-reset') }),
      responses: { 200: { description: 'The sign-in page', schema: z.string() }, 303: { description: 'Already signed in: to /app/verifications' }, 422: { description: 'An unknown notice' } },
      handler: async (input) => {
        if (await sessionOf(deps, input.header('cookie'))) return seeOther(`${appPath}/verifications`);
        const id = signedOutId(input);
        const notice = input.query.notice;
        return loginPage(200, id.loginId, notice ? { notice } : {}, id.setCookie ? { 'Set-Cookie': setCookie(LOGIN_COOKIE, id.loginId, { ...cookies, maxAge: 3600 }) } : {});
      },
    }),
    route({
      method: 'post',
      path: '/app/login',
      tag: 'webapp',
      summary: 'Sign in to the web app (an HTML form)',
      description:
        'Form fields (application/x-www-form-urlencoded): `email`, `password`, `csrf_token` (from the sign-in page, bound to its cookie). Same credentials, same check and same failed-attempt limit as POST /v1/accounts/login. Success starts a server-side session and sets its cookie (an opaque secret, no API credential; HttpOnly, SameSite=Strict, Path=/app, Secure behind https; it ends after APP_SESSION_IDLE_SECONDS unused or APP_SESSION_ABSOLUTE_SECONDS after sign-in) and redirects to /app/verifications; a wrong password shows the form again (401).',
      auth: 'none',
      produces: 'text/html',
      errorPage,
      responses: {
        200: { description: 'Never: success redirects', schema: z.string() },
        303: { description: 'Signed in: to /app/verifications; without the sign-in page’s cookie, to the sign-in page' },
        400: { description: 'VALIDATION_ERROR: not a form (application/x-www-form-urlencoded), or larger than 64 KiB' },
        401: { description: 'INVALID_CREDENTIALS: the form again, saying so' },
        422: { description: 'VALIDATION_ERROR: a field empty or too long, or holding text the API refuses in every field (a NUL; bytes that are not UTF-8): the form again, saying so' },
        403: { description: 'ACCESS_DENIED: the form came from another site or without its token' },
        429: { description: 'RATE_LIMIT_EXCEEDED: too many failed attempts' },
      },
      handler: async (input) => {
        const post = await readSignedOutForm(ctx, input, `${appPath}/login`);
        if ('redirect' in post) return post.redirect;
        // Bytes that are not UTF-8, text no field of the API takes (a NUL): the form again, before the address is looked up (issue 36 items 1 and 9).
        if ('refused' in post) return loginPage(422, post.loginId, { error: refusalWords(post.refused) });
        const { loginId, form } = post;
        const call = input.call;
        const email = form.get('email')?.trim() ?? '';
        const password = form.get('password') ?? '';
        if (!email || !password || email.length > 254 || password.length > 200) {
          return loginPage(422, loginId, { email: email.slice(0, 254), error: 'Enter your e-mail address and your password.' });
        }
        try {
          const { secret } = await startAppSession(deps, call, { email, password });
          return seeOther(`${appPath}/verifications`, { 'Set-Cookie': setCookie(SESSION_COOKIE, secret, { ...cookies, maxAge: deps.config.APP_SESSION_ABSOLUTE_SECONDS }) });
        } catch (error) {
          if (error instanceof AppError && error.code === 'INVALID_CREDENTIALS') return loginPage(401, loginId, { email, error: `${error.message} ${error.suggestion ?? ''}`.trim() });
          throw error;
        }
      },
    }),
    route({
      method: 'post',
      path: '/app/logout',
      tag: 'webapp',
      summary: 'Sign out of the web app (an HTML form)',
      description: 'Form field `csrf_token` (the session’s). Ends the session on the server (its cookie, or any copy of it, opens nothing from then on), clears the cookie and redirects to /app/login.',
      auth: 'none',
      produces: 'text/html',
      errorPage,
      responses: { 303: { description: 'Signed out (or not signed in): to /app/login' }, 400: { description: 'VALIDATION_ERROR: not a form, or larger than 64 KiB' }, 403: { description: 'ACCESS_DENIED: another site’s form, or without the session’s token' } },
      handler: formAction(async ({ call }, session) => {
        await signOutAppSession(deps, call, session);
        return seeOther(`${appPath}/login?notice=signed-out`, { 'Set-Cookie': clearCookie(SESSION_COOKIE, cookies) });
      }),
    }),
    route({
      method: 'get',
      path: '/app/verifications',
      tag: 'webapp',
      summary: 'The web app’s verifications list (HTML)',
      description:
        'The account’s verifications, newest first unless sort_by/sort_order say otherwise, 20 a page, with the search, status, assurance_level, tags and request_id filters of GET /v1/verifications (the same use case). An empty field means any. A failed verification shows its own grey state with the reason and what to do next, never its level, and a level filter lists none that failed. No result filter: the legacy result groups unrated files with flagged ones (docs/verdicts.md).',
      auth: 'none',
      query: appListQuery,
      produces: 'text/html',
      errorPage,
      responses: { 200: { description: 'The list', schema: z.string() }, 303: { description: 'Not signed in: to /app/login' }, 400: { description: 'VALIDATION_ERROR: a status or sort the API refuses' }, 422: { description: 'An unknown assurance level or request id the API refuses, or a malformed query (an unknown parameter, an offset that is no number)' } },
      handler: signedIn(async ({ query }, session) => {
        const given = Object.fromEntries(Object.entries(query).filter(([key, value]) => key !== 'notice' && value !== undefined && value.trim() !== '')) as Record<string, string>;
        // A failed verification's pill is its own grey state, never its level: a level chosen lists
        // no failed one, so the page shows exactly what its pills say (the API's filter matches the stored level alone).
        const asked = { ...given };
        let noneShown = false;
        if (given.assurance_level) {
          const statuses = (given.status ?? verificationStatuses.join(',')).split(',').map((s) => s.trim()).filter(Boolean);
          const shown = statuses.filter((s) => s !== 'failed');
          noneShown = shown.length === 0;
          asked.status = (noneShown ? statuses : shown).join(',');
        }
        const listed = parsePart('query', listSchema, { sort_by: 'created_at', sort_order: 'desc', ...asked, size: PAGE_SIZE });
        const [answered, viewer, request] = await Promise.all([
          listVerifications(deps, session.principal, listed),
          viewerOf(session),
          // The filter's request, named as the requests feature reads it (not this account's: unnamed, and the list is empty).
          given.request_id ? requestOrNull(deps, session.principal, given.request_id) : null,
        ]);
        const found = noneShown ? { ...answered, items: [], total: 0 } : answered;
        const items = await listItemsOf(deps, session.principal, found.items);
        const pageUrl = (offset: number) => {
          const params = new URLSearchParams({ ...given, offset: String(offset) } as Record<string, string>);
          if (offset === 0) params.delete('offset');
          const text = params.toString();
          return `${appPath}/verifications${text ? `?${text}` : ''}`;
        };
        return page(200, (nonce) =>
          renderListPage({ serviceName, nonce, appPath, viewer, items, total: found.total, offset: found.offset, size: Number(PAGE_SIZE), filters: query, pageUrl, notice: query.notice, request }),
        );
      }),
    }),
    route({
      method: 'get',
      path: '/app/verifications/{verification_id}',
      tag: 'webapp',
      summary: 'The web app’s page of one verification (HTML)',
      description: 'What GET /v1/verifications/{verification_id} answers (the same use case), in the report page’s words. Another account’s verification is 404.',
      auth: 'none',
      params: verificationIdParam,
      query: verificationPageQuery,
      produces: 'text/html',
      errorPage,
      responses: { 200: { description: 'The verification', schema: z.string() }, 303: { description: 'Not signed in: to /app/login' }, 404: { description: 'VERIFICATION_NOT_FOUND' }, 422: { description: 'The id is not a UUID' } },
      handler: signedIn(async ({ params, query }, session) => verificationPage(ctx, session, params.verification_id, { query })),
    }),
  ];
}
