import { html, type Html } from '../core/text/html.js';
import type { RequestView } from '../features/requests/index.js';
import { copyButton, copyButtonScript } from './copy-button.js';
import { renderVerificationRows, type ListItem } from './pages.js';
import { CSRF_FIELD } from './session.js';
import { appPage, type Viewer } from './shell.js';

/**
 * The requests workspace (issue 39 item 3; docs/webapp.md "Requests"): the account's verification
 * requests with their state and counts, a form to create one, a request's page with its link to
 * copy, its submissions with their verdicts, and closing it. Pure rendering over what the
 * requests use cases answered (GET /v1/requests, GET /v1/requests/{id}) and the verifications list.
 */

interface RequestsPageContext {
  serviceName: string;
  nonce: string;
  appPath: string;
  viewer: Viewer;
}

/** The status the API derives (open, closed, expired), in the page's words. */
const statusWords: Record<RequestView['status'], string> = { open: 'Open', closed: 'Closed', expired: 'Expired' };

const modeWords: Record<RequestView['mode'], { label: string; meaning: string }> = {
  existing_original: { label: 'An original photo', meaning: 'the provider uploads a photo they already have, with its camera RAW file when they have one.' },
  capture: { label: 'A photo taken with a capture app', meaning: 'the provider must take it with an app that attests the capture (a capture attestation).' },
};

const minute = (iso: string) => `${iso.slice(0, 16).replace('T', ' ')} UTC`;
const csrfField = (viewer: Viewer) => html`<input type="hidden" name="${CSRF_FIELD}" value="${viewer.csrfToken}">`;
const statusPill = (status: RequestView['status']) => html`<span class="pill request-${status}">${statusWords[status]}</span>`;
const counts = (r: Pick<RequestView, 'submission_count' | 'max_submissions'>) => `${r.submission_count} of ${r.max_submissions} ${r.max_submissions === 1 ? 'submission' : 'submissions'}`;

/** The create form's fields as typed (strings), to show the form again after a refusal. */
export interface RequestForm {
  subject?: string;
  instructions?: string;
  expires_at?: string;
  max_submissions?: string;
  share_with_provider?: boolean;
  mode?: RequestView['mode'];
}

export const REQUEST_NOTICES = {
  created: 'The request was created. Copy its link and send it to the person you ask.',
  closed: 'The request was closed. Its link accepts nothing more; its submissions stay.',
} as const;
export type RequestNotice = keyof typeof REQUEST_NOTICES;

export function renderRequestsPage(
  ctx: RequestsPageContext & {
    requests: RequestView[];
    total: number;
    offset: number;
    size: number;
    status?: string;
    pageUrl: (offset: number) => string;
    form: RequestForm;
    /** The deadline the form suggests (datetime-local text, UTC). */
    defaultDeadline: string;
    maxSubmissionsLimit: number;
    error?: string;
  },
): string {
  const { requests, total, offset, size, form } = ctx;
  const option = (value: string, label: string) => html`<option value="${value}"${(ctx.status ?? '') === value ? html` selected` : html``}>${label}</option>`;
  const mode = form.mode ?? 'existing_original';
  const rows = requests.map(
    (r) => html`<li>
<div><a class="name" href="${ctx.appPath}/requests/${r.id}">${r.subject}</a>
<p class="meta">${statusPill(r.status)} ${counts(r)} · <span class="nowrap">${r.status === 'closed' && r.closed_at ? `closed ${minute(r.closed_at)}` : `${r.status === 'expired' ? 'expired' : 'until'} ${minute(r.expires_at)}`}</span></p></div>
</li>`,
  );
  return appPage({
    ...ctx,
    title: 'Requests',
    current: '/requests',
    body: html`<main>
<h1>Requests</h1>
<p class="subtitle">Ask someone for an original: they get a link to upload it, without an account, and their photo is verified in your account.</p>
<section class="card" aria-labelledby="requests-title">
<h2 id="requests-title">${total === 0 ? 'No requests' : html`${offset + 1}–${offset + requests.length} of ${total}`}</h2>
<form class="filters inline-form" method="get" action="${ctx.appPath}/requests" role="search" aria-label="Filter requests">
<div><label for="status">State</label><select id="status" name="status">${option('', 'Any')}${(Object.keys(statusWords) as RequestView['status'][]).map((s) => option(s, statusWords[s]))}</select></div>
<button type="submit">Show</button>
</form>
${requests.length ? html`<ul class="rows requests">${rows}</ul>` : html`<p class="muted">${ctx.status ? 'None in this state.' : 'None yet: create one below.'}</p>`}
<nav class="paging" aria-label="Pages">
${offset > 0 ? html`<a href="${ctx.pageUrl(Math.max(0, offset - size))}" rel="prev">Newer</a>` : html`<span></span>`}
${offset + requests.length < total ? html`<a href="${ctx.pageUrl(offset + size)}" rel="next">Older</a>` : html``}
</nav>
</section>
<section class="card" id="new" aria-labelledby="new-request-title">
<h2 id="new-request-title">Create a request</h2>
${ctx.error ? html`<p class="alert" role="alert" id="request-error">${ctx.error}</p>` : html``}
<form method="post" action="${ctx.appPath}/requests"${ctx.error ? html` aria-describedby="request-error"` : html``}>
${csrfField(ctx.viewer)}
<label for="subject">What you ask for</label>
<input id="subject" name="subject" required maxlength="200" value="${form.subject ?? ''}" placeholder="e.g. The original of your photo of the harbour fire" aria-describedby="subject-help">
<p class="help" id="subject-help">The provider sees it at the top of their page, with your account’s name.</p>
<label for="instructions">Instructions (optional)</label>
<textarea id="instructions" name="instructions" maxlength="5000">${form.instructions ?? ''}</textarea>
<label for="expires_at">Deadline (UTC)</label>
<input id="expires_at" name="expires_at" type="datetime-local" required value="${form.expires_at ?? ctx.defaultDeadline}" aria-describedby="deadline-help">
<p class="help" id="deadline-help">After it, the link accepts nothing. In UTC.</p>
<label for="max_submissions">How many submissions it accepts</label>
<input id="max_submissions" name="max_submissions" type="number" inputmode="numeric" min="1" max="${ctx.maxSubmissionsLimit}" required value="${form.max_submissions ?? '1'}">
<fieldset><legend>Kind of photo</legend>
${(Object.keys(modeWords) as RequestView['mode'][]).map((m) => html`<label class="choice"><input type="radio" name="mode" value="${m}"${mode === m ? html` checked` : html``}> <span><strong>${modeWords[m].label}</strong>: ${modeWords[m].meaning}</span></label>`)}
</fieldset>
<label class="choice"><input type="checkbox" name="share_with_provider" value="yes"${form.share_with_provider ? html` checked` : html``}> <span>Show the provider the verification’s report after they submit (otherwise a short result)</span></label>
<button class="primary" type="submit">Create the request</button>
</form>
</section>
</main>`,
  });
}

export function renderRequestPage(
  ctx: RequestsPageContext & { request: RequestView; submissions: ListItem[]; submissionTotal: number; notice?: RequestNotice; error?: string },
): string {
  const { request: r } = ctx;
  const more = ctx.submissionTotal > ctx.submissions.length;
  return appPage({
    ...ctx,
    title: r.subject,
    current: '/requests',
    body: html`<main>
<p><a href="${ctx.appPath}/requests">All requests</a></p>
<h1 dir="auto">${r.subject}</h1>
<p class="meta">${statusPill(r.status)} ${counts(r)}</p>
${ctx.notice ? html`<p class="notice" role="status">${REQUEST_NOTICES[ctx.notice]}</p>` : html``}
${ctx.error ? html`<p class="alert" role="alert">${ctx.error}</p>` : html``}
<section class="card" aria-labelledby="link-title">
<h2 id="link-title">The provider’s link</h2>
${
  r.status === 'open'
    ? html`<p>Send it to the person you ask: whoever has it can submit${r.max_submissions > 1 ? `, up to ${r.max_submissions} times in all` : ''}.</p>`
    : html`<p>${r.status === 'closed' ? 'The request is closed:' : 'The deadline has passed:'} the link shows that it accepts nothing.</p>`
}
<label for="request-url">Link to the upload page</label>
<div class="copy-row"><input id="request-url" type="url" readonly value="${r.url}">${copyButton({ button: 'copy-request-url', field: 'request-url', status: 'copy-status' }, 'Copy link', 'Link copied.')}</div>
<p class="muted" id="copy-status" role="status"></p>
<dl class="facts">
<dt>Deadline</dt><dd>${minute(r.expires_at)}</dd>
<dt>Kind of photo</dt><dd>${modeWords[r.mode].label}</dd>
<dt>The provider sees</dt><dd>${r.share_with_provider ? 'The verification’s report' : 'A short result'}</dd>
<dt>Created</dt><dd>${minute(r.created_at)}</dd>
${r.closed_at ? html`<dt>Closed</dt><dd>${minute(r.closed_at)}</dd>` : html``}
</dl>
${r.instructions.trim() ? html`<h3>Instructions</h3><p class="instructions" dir="auto">${r.instructions}</p>` : html``}
</section>
<section class="card" aria-labelledby="submissions-title">
<h2 id="submissions-title">${ctx.submissionTotal === 0 ? 'No submissions yet' : `${ctx.submissionTotal} ${ctx.submissionTotal === 1 ? 'submission' : 'submissions'}`}</h2>
${ctx.submissions.length ? html`<ul class="rows">${renderVerificationRows(ctx.appPath, ctx.submissions)}</ul>` : html`<p class="muted">What the provider submits appears here, with its verdict.</p>`}
${more || ctx.submissionTotal > 0 ? html`<p><a href="${ctx.appPath}/verifications?request_id=${r.id}">${more ? 'See every submission in the list' : 'Filter and sort them in the list'}</a></p>` : html``}
</section>
${
  r.status === 'closed'
    ? html``
    : html`<section class="card" id="close" aria-labelledby="close-title">
<h2 id="close-title">Close the request</h2>
<p>Closing is for good: the link accepts nothing more, and the request cannot be opened again. Its submissions stay.</p>
<a class="button-link danger" href="${ctx.appPath}/requests/${r.id}/close">Close the request…</a>
</section>`
}
</main>${copyButtonScript(ctx.nonce)}`,
  });
}

export function renderCloseRequestPage(ctx: RequestsPageContext & { request: RequestView }): string {
  const { request: r } = ctx;
  return appPage({
    ...ctx,
    title: 'Close a request',
    current: '/requests',
    body: html`<main class="narrow">
<h1>Close this request?</h1>
<section class="card" aria-labelledby="close-title">
<h2 id="close-title" dir="auto">${r.subject}</h2>
<p class="meta">${statusPill(r.status)} ${counts(r)}</p>
<p>Its link stops accepting photos at once and the request cannot be opened again. Its submissions and their reports stay.</p>
<form method="post" action="${ctx.appPath}/requests/${r.id}/close" class="actions">
${csrfField(ctx.viewer)}
<button class="danger" type="submit">Close the request</button>
<a class="button-link" href="${ctx.appPath}/requests/${r.id}">Keep it open</a>
</form>
</section>
</main>`,
  });
}

/** A submission's page says which request it answered (a line above the account's sections). */
export function renderSubmissionOf(appPath: string, request: Pick<RequestView, 'id' | 'subject' | 'status'>): Html {
  return html`<section class="card" id="request" aria-labelledby="request-title">
<h2 id="request-title">Submitted to a request</h2>
<p>This photo answered your request <a href="${appPath}/requests/${request.id}" dir="auto">${request.subject}</a> (${statusWords[request.status].toLowerCase()}).</p>
</section>`;
}
