import { html } from '../core/text/html.js';
import { listTags, MAX_TAG_NAME_LENGTH } from '../features/tags/index.js';
import { CSRF_FIELD } from './session.js';
import type { VerificationSection } from './verification-section.js';

/**
 * The verification page's tags (issue 27, must-work 2): the tags it carries, each with a remove
 * button; a choice of the account's other tags to add; a new tag's name to create and add. The
 * forms post to collab-routes.ts, which calls the tags feature's use cases (the REST routes').
 */

export const TAGS_SECTION_ID = 'tags';

interface TagOnVerification {
  id: string;
  name: string;
}

export const tagsSection: VerificationSection = {
  id: TAGS_SECTION_ID,
  async render({ ctx, session, verification, refused }) {
    const base = `${ctx.appPath}/verifications/${verification.id}`;
    const carried = ((verification.tags ?? []) as TagOnVerification[]).map((t) => ({ id: t.id, name: t.name }));
    const carriedIds = new Set(carried.map((t) => t.id));
    // The browser does not limit the name's length: its maxlength counts UTF-16 units, the rule counts characters; the use case decides.
    // The account's vocabulary (listTags, as GET /v1/tags/), less what the verification already carries.
    const others = (await listTags(ctx.deps, session.principal)).items.filter((t) => !carriedIds.has(t.id));
    const mine = refused?.section === TAGS_SECTION_ID ? refused : undefined;
    const alert = (form: string) => (mine && mine.form === form ? html`<p class="alert" role="alert" id="tags-${form}-error">${mine.message}</p>` : html``);
    const csrf = html`<input type="hidden" name="${CSRF_FIELD}" value="${session.csrfToken}">`;
    const described = (form: string) => (mine && mine.form === form ? html` aria-describedby="tags-${form}-error" aria-invalid="true"` : html``);
    const typed = mine?.form === 'create' ? (mine.fields.get('name') ?? '') : '';

    return html`<section class="card" id="${TAGS_SECTION_ID}" aria-labelledby="tags-title">
<h2 id="tags-title">Tags</h2>
${alert('remove')}${others.length ? html`` : alert('add')}
${
  carried.length
    ? html`<ul class="chips" aria-label="Tags on this verification">${carried.map(
        (t) => html`<li><span>${t.name}</span><form method="post" action="${base}/tags/remove">${csrf}<input type="hidden" name="tag_id" value="${t.id}"><button type="submit" aria-label="Remove the tag ${t.name}">×</button></form></li>`,
      )}</ul>`
    : html`<p class="muted">No tags yet.</p>`
}
${
  others.length
    ? html`<form class="inline-form" method="post" action="${base}/tags">${csrf}
<div><label for="tag-add">Add one of your tags</label>${alert('add')}
<select id="tag-add" name="name" required${described('add')}><option value="">Choose a tag</option>${others.map((t) => html`<option value="${t.name}">${t.name}</option>`)}</select></div>
<button type="submit">Add</button>
</form>`
    : html``
}
<form class="inline-form" method="post" action="${base}/tags/new">${csrf}
<div><label for="tag-new">New tag</label>${alert('create')}
<p class="hint muted" id="tag-new-hint">1 to ${MAX_TAG_NAME_LENGTH} characters, no commas.</p>
<input id="tag-new" name="name" required autocomplete="off" value="${typed}" aria-describedby="tag-new-hint${mine?.form === 'create' ? ' tags-create-error' : ''}"${mine?.form === 'create' ? html` aria-invalid="true"` : html``}></div>
<button type="submit">Create and add</button>
</form>
</section>`;
  },
};
