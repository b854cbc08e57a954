import { html, type Html } from '../core/text/html.js';
import { verificationStatuses } from '../features/verifications/events.js';
import { FAILED_LABEL, levelWords, verdictWords, reasonWords, type FailureExplanation } from '../features/verifications/index.js';
import { appPage, type Viewer } from './shell.js';
import { CSRF_FIELD } from './session.js';

/** The app's pages, pure rendering: every value goes through `html`, which escapes it. */

interface PageContext {
  serviceName: string;
  nonce: string;
  appPath: string;
}

export function renderLoginPage(ctx: PageContext & { csrfToken: string; email?: string; error?: string; notice?: 'signed-out' | 'password-reset' }): string {
  return appPage({
    ...ctx,
    title: 'Sign in',
    body: html`<main class="narrow">
<section class="card" aria-labelledby="sign-in-title">
<h1 id="sign-in-title">Sign in</h1>
${ctx.error ? html`<p class="alert" role="alert">${ctx.error}</p>` : html``}
${ctx.notice && !ctx.error ? html`<p class="notice" role="status">${ctx.notice === 'signed-out' ? 'You are signed out.' : 'Your new password is set, and you were signed out everywhere. Sign in with it.'}</p>` : html``}
<form method="post" action="${ctx.appPath}/login">
<input type="hidden" name="${CSRF_FIELD}" value="${ctx.csrfToken}">
<label for="email">E-mail address</label>
<input id="email" name="email" type="email" autocomplete="username" required maxlength="254" value="${ctx.email ?? ''}">
<label for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="current-password" required maxlength="200">
<button class="primary" type="submit">Sign in</button>
</form>
<p><a href="${ctx.appPath}/password-reset">Forgot your password?</a></p>
<p class="muted">New here? <a href="${ctx.appPath}/signup">Create an account</a>. Invited by your account’s admin? Choose your password with the link in the invitation e-mail first.</p>
</section>
</main>`,
  });
}

export interface ListItem {
  id: string;
  name: string;
  status: string;
  assurance_level: keyof typeof levelWords | null;
  created_at: string;
  image_thumbnail_url: string;
  tags?: { name: string }[];
  /** A failed verification's failure in plain words (verifications' failureOf). */
  failure?: FailureExplanation | null;
  /** The request a submission answered, as the API lists it. */
  request_id?: string | null;
  /** That request's subject, as the requests feature reads it (null when none). */
  request?: { id: string; subject: string } | null;
}

export interface ListFilters {
  search?: string;
  status?: string;
  assurance_level?: string;
  tags?: string;
  sort_by?: string;
  sort_order?: string;
  request_id?: string;
}

/** The levels in the order the grading names them, each with its pill's label (levelWords: the one table). */
const LEVELS = Object.keys(levelWords) as (keyof typeof levelWords)[];

const statusWords: Record<string, string> = { pending: 'Waiting for files', queued: 'Queued', in_progress: 'In progress', completed: 'Completed', failed: 'Failed' };

/**
 * The pill of a list item: a failed verification is a grey state of its own (never its level,
 * never "No result yet"), otherwise the level the grading recorded, with levelWords' label (the
 * level filter offers the same labels), or "No result yet" while it is not graded.
 */
export const levelPill = (v: Pick<ListItem, 'status' | 'assurance_level'>) =>
  v.status === 'failed'
    ? html`<span class="pill state-failed">${FAILED_LABEL}</span>`
    : v.assurance_level
      ? html`<span class="pill level-${v.assurance_level}">${levelWords[v.assurance_level].label}</span>`
      : html`<span class="pill">No result yet</span>`;

/** The level filter's label of a value: one level's pill label, or several joined ("Verified or Provisional"). */
const levelsLabel = (value: string) =>
  value.split(',').map((level) => level.trim()).filter(Boolean).map((level) => levelWords[level as keyof typeof levelWords]?.label ?? level).join(' or ');

const SORTS: Record<string, string> = { created_at: 'Date uploaded', updated_at: 'Last change', status: 'Status' };

const day = (iso: string) => iso.slice(0, 16).replace('T', ' ') + ' UTC';

/** The rows of a verifications list (the list page, a request's submissions): thumbnail, name, pill, state, date, failure, request, tags. */
export function renderVerificationRows(appPath: string, items: readonly ListItem[]): Html {
  return html`${items.map(
    (v) => html`<li>
${v.image_thumbnail_url ? html`<img src="${v.image_thumbnail_url}" alt="" width="64" height="64">` : html`<span class="nothumb" aria-hidden="true"></span>`}
<div><a class="name" href="${appPath}/verifications/${v.id}">${v.name}</a>
<p class="meta">${levelPill(v)} ${v.status === 'failed' ? html`` : html`${statusWords[v.status] ?? v.status} · `}<span class="nowrap">${day(v.created_at)}</span></p>
${v.failure ? html`<p class="meta failure">${v.failure.summary} <a href="${appPath}/verifications/${v.id}#verdict-title">What to do next</a></p>` : html``}
${v.request ? html`<p class="meta">Submitted to the request <a href="${appPath}/requests/${v.request.id}">${v.request.subject}</a></p>` : html``}
${v.tags?.length ? html`<p class="meta">${v.tags.map((t) => html`<span class="tag">${t.name}</span>`)}</p>` : html``}</div>
</li>`,
  )}`;
}

export function renderListPage(
  ctx: PageContext & { viewer: Viewer; items: ListItem[]; total: number; offset: number; size: number; filters: ListFilters; pageUrl: (offset: number) => string; notice?: 'deleted'; request?: { id: string; subject: string } | null },
): string {
  const { items, total, offset, size, filters } = ctx;
  const option = (value: string, label: string, selected: string | undefined) => html`<option value="${value}"${selected === value ? html` selected` : html``}>${label}</option>`;
  const rows = renderVerificationRows(ctx.appPath, items);
  const first = total === 0 ? 0 : offset + 1;
  const filtered = [filters.search, filters.status, filters.assurance_level, filters.tags, filters.request_id].some((value) => value !== undefined && value.trim() !== '');
  const level = filters.assurance_level?.trim() ?? '';
  const levelOptions = [...LEVELS.map((l) => option(l, levelWords[l].label, level)), ...(level && !(LEVELS as string[]).includes(level) ? [option(level, levelsLabel(level), level)] : [])];
  return appPage({
    ...ctx,
    title: 'Verifications',
    current: '/verifications',
    body: html`<main>
<h1>Verifications</h1>
${ctx.notice === 'deleted' ? html`<p class="notice" role="status">The verification was deleted, with its files.</p>` : html``}
<details class="filter-fold"${filtered || filters.sort_by || filters.sort_order ? html` open` : html``}>
<summary>Filter and sort</summary>
<form class="card filters" method="get" action="${ctx.appPath}/verifications" role="search" aria-label="Filter verifications">
<div><label for="search">Search</label><input id="search" name="search" type="search" maxlength="200" value="${filters.search ?? ''}" placeholder="File name, id, photo hash or tag"></div>
<div><label for="status">Status</label><select id="status" name="status">${option('', 'Any', filters.status)}${verificationStatuses.map((s) => option(s, statusWords[s] ?? s, filters.status))}</select></div>
<div><label for="assurance_level">Assurance level</label><select id="assurance_level" name="assurance_level">${option('', 'Any', level)}${levelOptions}</select></div>
<div><label for="tags">Tags</label><input id="tags" name="tags" maxlength="500" value="${filters.tags ?? ''}" placeholder="e.g. sports, contest"></div>
<div><label for="sort_by">Sort by</label><select id="sort_by" name="sort_by">${Object.entries(SORTS).map(([value, label]) => option(value, label, filters.sort_by || 'created_at'))}</select></div>
<div><label for="sort_order">Order</label><select id="sort_order" name="sort_order">${option('desc', 'Descending (newest first)', filters.sort_order || 'desc')}${option('asc', 'Ascending (oldest first)', filters.sort_order || 'desc')}</select></div>
${filters.request_id ? html`<input type="hidden" name="request_id" value="${filters.request_id}">` : html``}
<div class="actions"><button class="primary" type="submit">Filter</button></div>
</form>
</details>
${filters.request_id ? html`<p class="notice" role="status">Only the submissions to ${ctx.request ? html`the request <a href="${ctx.appPath}/requests/${ctx.request.id}" dir="auto">${ctx.request.subject}</a>` : 'one verification request'}. <a href="${ctx.appPath}/verifications">Show every verification</a></p>` : html``}
<section class="card" aria-labelledby="results-title">
<h2 id="results-title">${total === 0 ? 'No verifications' : html`${first}–${offset + items.length} of ${total}`}</h2>
${items.length ? html`<ul class="rows">${rows}</ul>` : filtered ? html`<p class="muted">Nothing matches. <a href="${ctx.appPath}/verifications">Clear the filters</a> to see every verification.</p>` : html`<p class="muted">None yet. <a href="${ctx.appPath}/upload">Upload a photo</a>, with its camera RAW when you have it, to verify it.</p>`}
<nav class="paging" aria-label="Pages">
${offset > 0 ? html`<a href="${ctx.pageUrl(Math.max(0, offset - size))}" rel="prev">Newer</a>` : html`<span></span>`}
${offset + items.length < total ? html`<a href="${ctx.pageUrl(offset + size)}" rel="next">Older</a>` : html``}
</nav>
</section>
</main>`,
  });
}

export interface DetailView extends ListItem {
  verification_mode: 'raw_pair' | 'image_only';
  result: boolean | null;
  verdict: keyof typeof verdictWords | null;
  verdict_reason: keyof typeof reasonWords | null;
  failure_reason: string | null;
  image_photo_hash: string;
  raw_photo_hash: string;
  short_code: string;
}

const errorTitles: Record<number, string> = { 403: 'This was not accepted', 404: 'This page does not exist', 429: 'Too many attempts' };

export function renderAppErrorPage(ctx: PageContext & { status: number; message: string; suggestion?: string }): string {
  const title = errorTitles[ctx.status] ?? (ctx.status >= 500 ? 'Something went wrong' : 'This page cannot be shown');
  return appPage({
    ...ctx,
    title,
    body: html`<main class="narrow">
<section class="card" aria-labelledby="error-title">
<h1 id="error-title">${title}</h1>
<p>${ctx.message}</p>
${ctx.suggestion ? html`<p class="muted">${ctx.suggestion}</p>` : html``}
<p><a href="${ctx.appPath}/verifications">Go to your verifications</a></p>
<p class="muted">Error ${ctx.status}</p>
</section>
</main>`,
  });
}
