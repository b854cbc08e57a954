import { z } from 'zod';
import type { Reply, RouteSpec } from '../core/http/route-spec.js';
import { route } from '../core/http/route-spec.js';
import { parsePart } from '../core/http/validation.js';
import type { AppDeps } from '../core/module/deps.js';
import type { Principal } from '../core/principal.js';
import { createRequest, getRequest, listRequests, MAX_SUBMISSIONS_LIMIT, requestCreateBody, requestListQuery, updateRequest, type RequestView } from '../features/requests/index.js';
import { listQuery, listVerifications } from '../features/verifications/index.js';
import type { AppContext } from './context.js';
import { formRefusal, refusalMessage } from './form-refusal.js';
import { listItemsOf } from './list-items.js';
import { renderCloseRequestPage, renderRequestPage, renderRequestsPage, REQUEST_NOTICES, type RequestForm } from './requests-pages.js';
import { asSessionUser, type AppSession } from './session.js';

/**
 * The requests workspace (issue 39 item 3; docs/webapp.md "Requests"): the pages of the person who
 * asks for originals. Each page and form calls the use case its REST route calls (GET/POST
 * /v1/requests, GET/PATCH /v1/requests/{id}, GET /v1/verifications?request_id=), and the create
 * form is read by POST /v1/requests' own body schema, so a request made here is one the API would
 * make, refused as the API refuses it.
 */

const PAGE_SIZE = 20;
/** The create form's deadline suggestion: a week from now. */
const DEFAULT_DEADLINE_MS = 7 * 24 * 3600 * 1000;

const requestParam = z.strictObject({ request_id: z.uuid() });
const requestsQuery = z.strictObject({
  status: z.string().max(20).optional().describe('open, closed or expired, as GET /v1/requests takes it; empty: any'),
  offset: z.string().max(12).optional(),
});
const requestQuery = z.strictObject({ done: z.enum(Object.keys(REQUEST_NOTICES) as [keyof typeof REQUEST_NOTICES]).optional().describe('What the form that led here did (a code the page words)') });

/** The form's field names are the body's; these are their labels, for a refusal in the page's words. */
const labels = {
  subject: 'What you ask for',
  instructions: 'Instructions',
  expires_at: 'Deadline',
  max_submissions: 'How many submissions it accepts',
  mode: 'Kind of photo',
  share_with_provider: 'Show the provider the report',
};

/** A datetime-local field's text (no zone) is the page's UTC deadline; anything else goes to the schema as typed, which refuses it. */
const deadlineOf = (typed: string) => (/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2})?$/.test(typed) ? `${typed.length === 16 ? `${typed}:00` : typed}Z` : typed);
const datetimeLocal = (date: Date) => date.toISOString().slice(0, 16);

/** The submissions of a request (the verifications list's use case with its request_id filter), newest first. */
async function submissionsOf(deps: AppDeps, principal: Principal, requestId: string) {
  const query = parsePart('query', listQuery(deps.extensions), { request_id: requestId, sort_by: 'created_at', sort_order: 'desc', size: String(PAGE_SIZE) });
  const found = await listVerifications(deps, principal, query);
  // Every row answered this request: the page says so once, not on each row.
  const items = (await listItemsOf(deps, principal, found.items)).map((item) => ({ ...item, request: null }));
  return { items, total: found.total };
}

export function requestsRoutes(ctx: AppContext): RouteSpec[] {
  const { deps, appPath, serviceName, page, errorPage, viewerOf, signedIn, formAction, seeOther } = ctx;
  const common = { tag: 'webapp', auth: 'none' as const, produces: 'text/html', errorPage };
  const signedOut = { 303: { description: 'Not signed in: to /app/login' } };
  const formErrors = {
    400: { description: 'VALIDATION_ERROR: not a form (application/x-www-form-urlencoded), or larger than 64 KiB' },
    403: { description: 'ACCESS_DENIED: another site’s form, or a form without the session’s token' },
  };

  async function requestsPage(session: AppSession, status: number, query: { status?: string; offset?: string }, extra: { form?: RequestForm; error?: string } = {}): Promise<Reply> {
    const given = Object.fromEntries(Object.entries(query).filter(([, value]) => value !== undefined && value.trim() !== '')) as Record<string, string>;
    const listed = parsePart('query', requestListQuery, { ...given, size: String(PAGE_SIZE) });
    const [found, viewer] = await Promise.all([listRequests(deps, session.principal, listed), viewerOf(session)]);
    const pageUrl = (offset: number) => {
      const params = new URLSearchParams({ ...given, offset: String(offset) });
      if (offset === 0) params.delete('offset');
      const text = params.toString();
      return `${appPath}/requests${text ? `?${text}` : ''}`;
    };
    return page(status, (nonce) =>
      renderRequestsPage({
        serviceName,
        nonce,
        appPath,
        viewer,
        requests: found.items,
        total: found.total,
        offset: found.offset,
        size: PAGE_SIZE,
        status: given.status,
        pageUrl,
        form: extra.form ?? {},
        defaultDeadline: datetimeLocal(new Date(deps.now().getTime() + DEFAULT_DEADLINE_MS)),
        maxSubmissionsLimit: MAX_SUBMISSIONS_LIMIT,
        error: extra.error,
      }),
    );
  }

  async function requestPage(session: AppSession, status: number, request: RequestView, extra: { notice?: keyof typeof REQUEST_NOTICES; error?: string } = {}): Promise<Reply> {
    const [submissions, viewer] = await Promise.all([submissionsOf(deps, session.principal, request.id), viewerOf(session)]);
    return page(status, (nonce) => renderRequestPage({ serviceName, nonce, appPath, viewer, request, submissions: submissions.items, submissionTotal: submissions.total, ...extra }), { script: true });
  }

  return [
    route({
      ...common,
      method: 'get',
      path: '/app/requests',
      summary: 'The web app’s requests page (HTML): the account’s verification requests and a form to create one',
      description: 'What GET /v1/requests lists (the same use case), newest first, 20 a page, with its status filter (empty: any): each request’s state and submission count, linked to its page; below, the create form.',
      query: requestsQuery,
      responses: { 200: { description: 'The requests', schema: z.string() }, ...signedOut, 422: { description: 'A status the API refuses, or a malformed query' } },
      handler: signedIn(async ({ query }, session) => requestsPage(session, 200, query)),
    }),
    route({
      ...common,
      method: 'post',
      path: '/app/requests',
      summary: 'Create a verification request (an HTML form)',
      description:
        'Form fields: `subject`, `instructions`, `expires_at` (a datetime-local value, read as UTC), `max_submissions`, `mode` (existing_original or capture), `share_with_provider` (a checkbox: `yes` when ticked), `csrf_token`. Read by the body schema of POST /v1/requests and created by its use case; on success, to the request’s page. A refused field shows the form again at the API’s status (422 naming the field; 400 ACCOUNT_NAME_REQUIRED) and creates nothing.',
      responses: {
        303: { description: 'Created: to the request’s page; not signed in: to /app/login' },
        ...formErrors,
        400: { description: 'VALIDATION_ERROR (not a form, or larger than 64 KiB), or ACCOUNT_NAME_REQUIRED: the form again, saying so' },
        422: { description: 'VALIDATION_ERROR: the form again, saying which field the API refuses' },
      },
      handler: formAction(async ({ call }, session, form) => {
        const typed: RequestForm = {
          subject: form.get('subject') ?? '',
          instructions: form.get('instructions') ?? '',
          expires_at: form.get('expires_at') ?? '',
          max_submissions: form.get('max_submissions') ?? '',
          share_with_provider: form.get('share_with_provider') === 'yes',
          mode: form.get('mode') === 'capture' ? 'capture' : 'existing_original',
        };
        try {
          const count = typed.max_submissions!.trim();
          const body = parsePart('body', requestCreateBody, {
            subject: typed.subject,
            instructions: typed.instructions,
            expires_at: deadlineOf(typed.expires_at!.trim()),
            // A number field's text as the API's integer: anything else stays text, which the schema refuses; no field, the API's default.
            max_submissions: !form.has('max_submissions') ? undefined : /^\d{1,6}$/.test(count) ? Number(count) : count,
            share_with_provider: typed.share_with_provider,
            mode: form.get('mode') || undefined,
          });
          const created = await createRequest(deps, asSessionUser(call, session), body);
          return seeOther(`${appPath}/requests/${created.id}?done=created`);
        } catch (error) {
          const refusal = formRefusal(deps, error);
          if (!refusal) throw error;
          return requestsPage(session, refusal.status, {}, { form: typed, error: refusalMessage(refusal.error, labels) });
        }
      }),
    }),
    route({
      ...common,
      method: 'get',
      path: '/app/requests/{request_id}',
      summary: 'The web app’s page of one verification request (HTML): its link, settings and submissions',
      description: 'What GET /v1/requests/{request_id} answers (the same use case; another account’s request is its 404): the provider’s link with a copy button, the settings, and the submissions with their verdicts (GET /v1/verifications?request_id=, newest first), and a way to close it.',
      params: requestParam,
      query: requestQuery,
      responses: { 200: { description: 'The request', schema: z.string() }, ...signedOut, 404: { description: 'REQUEST_NOT_FOUND' }, 422: { description: 'The id is not a UUID, or a malformed query' } },
      handler: signedIn(async ({ params, query }, session) => requestPage(session, 200, await getRequest(deps, session.principal, params.request_id), { notice: query.done })),
    }),
    route({
      ...common,
      method: 'get',
      path: '/app/requests/{request_id}/close',
      summary: 'Confirm closing a verification request (HTML)',
      params: requestParam,
      responses: { 200: { description: 'The confirmation form', schema: z.string() }, ...signedOut, 404: { description: 'REQUEST_NOT_FOUND' }, 422: { description: 'The id is not a UUID' } },
      handler: signedIn(async ({ params }, session) => {
        const [request, viewer] = await Promise.all([getRequest(deps, session.principal, params.request_id), viewerOf(session)]);
        return page(200, (nonce) => renderCloseRequestPage({ serviceName, nonce, appPath, viewer, request }));
      }),
    }),
    route({
      ...common,
      method: 'post',
      path: '/app/requests/{request_id}/close',
      summary: 'Close a verification request (an HTML form)',
      description: 'Form field `csrf_token`. The use case of PATCH /v1/requests/{request_id} with {"status": "closed"}: terminal, its link accepts nothing more. Another account’s request is 404; closing one already closed changes nothing (as on the API) and answers the same.',
      params: requestParam,
      responses: {
        303: { description: 'Closed: to the request’s page; not signed in: to /app/login' },
        ...formErrors,
        404: { description: 'REQUEST_NOT_FOUND' },
        422: { description: 'The id is not a UUID' },
      },
      handler: formAction(async ({ call, params }, session) => {
        try {
          await updateRequest(deps, asSessionUser(call, session), params.request_id, { status: 'closed' });
          return seeOther(`${appPath}/requests/${params.request_id}?done=closed`);
        } catch (error) {
          const refusal = formRefusal(deps, error);
          // Not this account's (404): the error page, as for its GET; anything else the request's page again.
          if (!refusal || refusal.status === 404) throw error;
          return requestPage(session, refusal.status, await getRequest(deps, session.principal, params.request_id), { error: refusalMessage(refusal.error, labels) });
        }
      }),
    }),
  ];
}
