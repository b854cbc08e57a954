import { html, type Html } from '../core/text/html.js';
import { listComments, MAX_COMMENT_LENGTH, type CommentView } from '../features/comments/index.js';
import { CSRF_FIELD } from './session.js';
import type { VerificationSection } from './verification-section.js';

/**
 * The verification page's comments (issue 27, must-work 2): oldest first with author and time
 * (and when edited), a form to add one, and on each comment the actions its viewer may take:
 * edit their own (`?edit=<comment id>` opens the form in place, no script), delete their own or,
 * as an admin, any. The buttons only mirror the rule; the comments use cases enforce it (a member's
 * forged delete of another's comment is the API's 403). Forms post to collab-routes.ts.
 */

export const COMMENTS_SECTION_ID = 'comments';
/** The add form's refusal; an edit form's is the comment's id. */
export const NEW_COMMENT_FORM = 'new';

const when = (iso: string) => html`<time datetime="${iso}">${iso.slice(0, 16).replace('T', ' ')} UTC</time>`;

export const commentsSection: VerificationSection = {
  id: COMMENTS_SECTION_ID,
  async render({ ctx, session, verification, query, refused }) {
    const base = `${ctx.appPath}/verifications/${verification.id}`;
    const { items } = await listComments(ctx.deps, session.principal, verification.id);
    const me = session.principal;
    const mine = refused?.section === COMMENTS_SECTION_ID ? refused : undefined;
    // The comment whose edit form is open: asked for by the link, or refused and shown again.
    const editing = mine && mine.form !== NEW_COMMENT_FORM ? mine.form : query.edit;
    const csrf = html`<input type="hidden" name="${CSRF_FIELD}" value="${session.csrfToken}">`;
    const alert = (form: string) => (mine?.form === form ? html`<p class="alert" role="alert" id="comment-${form}-error">${mine.message}</p>` : html``);
    // A refused edit of a comment whose form is not on the page (another's, or one no longer there): said under the heading.
    const formShown = !mine || mine.form === NEW_COMMENT_FORM || items.some((c) => c.id === mine.form && c.author_user_id === me.userId);
    const invalid = (form: string) => (mine?.form === form ? html` aria-invalid="true" aria-describedby="comment-${form}-error"` : html``);

    const item = (c: CommentView): Html => {
      const own = c.author_user_id === me.userId;
      const heading = html`<p class="comment-meta"><strong>${c.author_name || 'A former user'}</strong> · ${when(c.created_at)}${c.edited_at ? html` · <span class="muted">edited ${when(c.edited_at)}</span>` : html``}</p>`;
      if (own && editing === c.id) {
        const text = mine?.form === c.id ? (mine.fields.get('body') ?? '') : c.body;
        return html`<li id="comment-${c.id}">${heading}
<form method="post" action="${base}/comments/${c.id}/edit">${csrf}
<label for="comment-edit-${c.id}">Edit your comment</label>${alert(c.id)}
<textarea id="comment-edit-${c.id}" name="body" rows="4" required autofocus maxlength="${MAX_COMMENT_LENGTH}"${invalid(c.id)}>${text}</textarea>
<div class="comment-actions"><button class="primary" type="submit">Save</button><a href="${base}#comment-${c.id}">Cancel</a></div>
</form></li>`;
      }
      const actions = [
        own ? html`<a href="${base}?edit=${c.id}#comment-${c.id}" aria-label="Edit your comment of ${c.created_at.slice(0, 16).replace('T', ' ')}">Edit</a>` : null,
        own || me.role === 'admin'
          ? html`<form method="post" action="${base}/comments/${c.id}/delete">${csrf}<button type="submit" aria-label="Delete the comment by ${c.author_name || 'a former user'} of ${c.created_at.slice(0, 16).replace('T', ' ')}">Delete</button></form>`
          : null,
      ].filter((a) => a !== null);
      return html`<li id="comment-${c.id}">${heading}<p class="comment-body">${c.body}</p>${actions.length ? html`<div class="comment-actions">${actions}</div>` : html``}</li>`;
    };

    const typed = mine?.form === NEW_COMMENT_FORM ? (mine.fields.get('body') ?? '') : '';
    return html`<section class="card" id="${COMMENTS_SECTION_ID}" aria-labelledby="comments-title">
<h2 id="comments-title">Comments${items.length ? html` <span class="muted">(${items.length})</span>` : html``}</h2>
<p class="muted">Seen only by the people of your account, never on a shared report.</p>
${formShown ? html`` : html`<p class="alert" role="alert">${mine.message}</p>`}
${items.length ? html`<ul class="comments">${items.map(item)}</ul>` : html`<p>No comments yet.</p>`}
<form method="post" action="${base}/comments">${csrf}
<label for="comment-new">Add a comment</label>${alert(NEW_COMMENT_FORM)}
<textarea id="comment-new" name="body" rows="4" required maxlength="${MAX_COMMENT_LENGTH}"${invalid(NEW_COMMENT_FORM)}>${typed}</textarea>
<button class="primary" type="submit">Add comment</button>
</form>
</section>`;
  },
};
