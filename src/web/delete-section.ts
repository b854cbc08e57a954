import { html, type Html } from '../core/text/html.js';
import { CSRF_FIELD } from './session.js';
import type { VerificationSection } from './verification-section.js';

/**
 * The verification page's delete section (issue 27, must-work 2): a form with a required
 * checkbox (the confirmation; the route checks it too, a browser without validation included),
 * posted to share-routes.ts, which calls the API's delete use case.
 */

export const DELETE_SECTION_ID = 'delete';
/** The checkbox's name and value: the route deletes only when the form carries exactly this. */
export const CONFIRM_FIELD = 'confirm';
export const CONFIRM_VALUE = 'delete';

export function renderDeleteSection(view: { appPath: string; csrfToken: string; verification: { id: string; name: string }; refused?: { message: string } }): Html {
  const { verification: v } = view;
  return html`<section class="card" id="${DELETE_SECTION_ID}" aria-labelledby="delete-title">
<h2 id="delete-title">Delete this verification</h2>
<p>Deleting removes the verification, its files, its report and its share link for good. It cannot be undone.</p>
${view.refused ? html`<p class="alert" role="alert" id="delete-error">${view.refused.message}</p>` : html``}
<form method="post" action="${view.appPath}/verifications/${v.id}/delete">
<input type="hidden" name="${CSRF_FIELD}" value="${view.csrfToken}">
<label class="choice"><input type="checkbox" name="${CONFIRM_FIELD}" value="${CONFIRM_VALUE}" required${view.refused ? html` aria-invalid="true" aria-describedby="delete-error"` : html``}> Yes, delete “${v.name}” and its files for good</label>
<button type="submit" class="danger">Delete</button>
</form>
</section>`;
}

export const deleteSection: VerificationSection = {
  id: DELETE_SECTION_ID,
  async render(input) {
    const refused = input.refused?.section === DELETE_SECTION_ID ? input.refused : undefined;
    return renderDeleteSection({ appPath: input.ctx.appPath, csrfToken: input.session.csrfToken, verification: input.verification, refused });
  },
};
