import { AppError } from '../core/errors.js';
import { html, type Html } from '../core/text/html.js';
import { getShare, viewAnalytics } from '../features/sharing/index.js';
import { copyButton, copyButtonScript } from './copy-button.js';
import { CSRF_FIELD } from './session.js';
import type { VerificationSection, VerificationSectionInput } from './verification-section.js';

/**
 * The verification page's sharing section (issue 27, must-work 2): share as a link or restricted,
 * the share's URL with a copy button, invitations by e-mail address, revoke, and the report's
 * views by day as a small chart. Its data come from the use cases the REST routes call (GET
 * …/share, GET …/analytics/views); its forms post to share-routes.ts.
 */

export const SHARING_SECTION_ID = 'sharing';
/** The stop form's checkbox (the confirmation; the route checks it too, a browser without validation included). */
export const STOP_CONFIRM_FIELD = 'confirm';
export const STOP_CONFIRM_VALUE = 'stop';

type Share = Awaited<ReturnType<typeof getShare>>;
type Views = Awaited<ReturnType<typeof viewAnalytics>>;

/** What a form's redirect may ask the page to say (a code, never text from the URL). */
export const SHARING_NOTICES = {
  'share-saved': 'Sharing saved.',
  'share-stopped': 'Sharing stopped: the link no longer works and every invitation is removed.',
  invited: 'Invitation sent: the address receives an e-mail with its own link.',
  'invite-removed': 'Invitation removed: that address can no longer open the report.',
} as const;
export type SharingNotice = keyof typeof SHARING_NOTICES;

const accessWords = {
  anyone_with_link: { choice: 'Anyone with the link', state: 'Anyone with the link can open the report.' },
  restricted: { choice: 'Only invited e-mail addresses', state: 'Restricted: only the invited e-mail addresses can open the report.' },
} as const;

/** The share, or null when the verification is not shared (GET …/share's 404 NOT_SHARED). */
async function shareOrNull(input: VerificationSectionInput): Promise<Share | null> {
  try {
    return await getShare(input.ctx.deps, input.session.principal, input.verification.id);
  } catch (error) {
    if (error instanceof AppError && error.code === 'NOT_SHARED') return null;
    throw error;
  }
}

const day = (date: string) => new Date(`${date}T00:00:00Z`).toLocaleDateString('en-GB', { day: 'numeric', month: 'short', timeZone: 'UTC' });

/**
 * The views as bars (an inline SVG: presentation attributes only, nothing the CSP refuses) with
 * the same numbers as a table for screen readers and anyone who wants the figures.
 */
export function renderViewsChart(views: Views): Html {
  const days = views.daily_views;
  const max = Math.max(1, ...days.map((d) => d.count));
  const slot = 10;
  const height = 60;
  const first = days[0]!.date;
  const last = days.at(-1)!.date;
  const busiest = days.reduce((best, d) => (d.count > best.count ? d : best), days[0]!);
  const summary = `${views.total_views} ${views.total_views === 1 ? 'view' : 'views'} from ${day(first)} to ${day(last)}${views.total_views > 0 ? `; most on ${day(busiest.date)}: ${busiest.count}` : ''}.`;
  const bars = days.map((d, i) => {
    const h = d.count === 0 ? 0 : Math.max(2, Math.round((d.count / max) * (height - 4)));
    return html`<rect x="${i * slot + 1}" y="${height - h}" width="${slot - 2}" height="${h}" fill="#0b57a4" data-date="${d.date}" data-count="${d.count}"><title>${day(d.date)}: ${d.count}</title></rect>`;
  });
  const heading = html`<h3 id="views-title">Views of the report by day</h3>
<p class="muted">A visitor counts once a day; your account’s own views are not counted.</p>`;
  // An empty chart is a blank box: the sentence says it instead.
  if (views.total_views === 0) return html`${heading}<p>No views yet, from ${day(first)} to ${day(last)}.</p>`;
  return html`${heading}
<figure class="views-chart">
<svg viewBox="0 0 ${days.length * slot} ${height}" preserveAspectRatio="none" role="img" aria-labelledby="views-summary" focusable="false">
<line x1="0" y1="${height - 0.5}" x2="${days.length * slot}" y2="${height - 0.5}" stroke="#6b7280" stroke-width="1"></line>
${bars}
</svg>
<figcaption id="views-summary">${summary}</figcaption>
</figure>
<details class="more"><summary>The views as a table</summary>
<div class="table-wrap"><table class="views-table">
<caption class="visually-hidden">Views of the report per day (UTC)</caption>
<thead><tr><th scope="col">Day (UTC)</th><th scope="col">Views</th></tr></thead>
<tbody>${days.map((d) => html`<tr><td>${d.date}</td><td>${d.count}</td></tr>`)}</tbody>
</table></div>
</details>`;
}

export interface SharingView {
  appPath: string;
  verificationId: string;
  csrfToken: string;
  share: Share | null;
  views: Views;
  notice?: string;
  /** A refused form: its message and the address typed. */
  refused?: { form?: string; message: string; fields: Map<string, string> };
}

export function renderSharingSection(view: SharingView): Html {
  const { share, appPath, csrfToken, refused } = view;
  const base = `${appPath}/verifications/${view.verificationId}/share`;
  const csrf = html`<input type="hidden" name="${CSRF_FIELD}" value="${csrfToken}">`;
  const current = share?.access_type ?? (refused?.fields.get('access_type') === 'restricted' ? 'restricted' : 'anyone_with_link');
  // One place for a refused form's message, under the heading: the form it belongs to may not be on the page (an invitation to a share that is no longer restricted).
  const alert = refused ? html`<p class="alert" role="alert" id="sharing-error">${refused.message}</p>` : html``;
  const notice = view.notice && view.notice in SHARING_NOTICES ? html`<p class="notice" role="status">${SHARING_NOTICES[view.notice as SharingNotice]}</p>` : html``;
  const choice = (value: keyof typeof accessWords) =>
    html`<label class="choice"><input type="radio" name="access_type" value="${value}"${current === value ? html` checked` : html``}> ${accessWords[value].choice}</label>`;
  const invites = share?.invited_emails ?? [];
  const restricted = share?.access_type === 'restricted';
  const typed = refused?.form === 'invite' ? (refused.fields.get('email') ?? '').slice(0, 254) : '';

  return html`<section class="card" id="${SHARING_SECTION_ID}" aria-labelledby="sharing-title">
<h2 id="sharing-title">Sharing</h2>
${notice}
${alert}
${
  share
    ? html`<p class="share-state">${accessWords[share.access_type].state}</p>
<label for="share-url">Link to the report</label>
<div class="copy-row"><input id="share-url" type="url" readonly value="${share.share_url}">${copyButton({ button: 'copy-share-url', field: 'share-url', status: 'copy-status' }, 'Copy link', 'Link copied.')}</div>
<p class="muted" id="copy-status" role="status"></p>`
    : html`<p class="share-state">Not shared: only the people of your account can see this verification.</p>`
}
<form method="post" action="${base}"${refused?.form === 'share' ? html` aria-describedby="sharing-error"` : html``}>
${csrf}
<fieldset><legend>Who can open the report</legend>
${choice('anyone_with_link')}
${choice('restricted')}
</fieldset>
<button class="primary" type="submit">${share ? 'Save' : 'Share'}</button>
</form>
${
  share
    ? html`<h3>Invited addresses</h3>
${
  invites.length
    ? html`<ul class="invites">${invites.map(
        (email) => html`<li><span>${email}</span><form method="post" action="${base}/invites/remove">${csrf}<input type="hidden" name="email" value="${email}"><button type="submit" aria-label="Remove the invitation of ${email}">Remove</button></form></li>`,
      )}</ul>`
    : html`<p class="muted">No address is invited.</p>`
}
${
  restricted
    ? html`<form method="post" action="${base}/invites">
${csrf}
<label for="invite-email">Invite an e-mail address</label>
<input id="invite-email" name="email" type="email" required maxlength="254" autocomplete="off" value="${typed}"${refused?.form === 'invite' ? html` aria-invalid="true" aria-describedby="sharing-error"` : html``}>
<p class="muted">They receive an e-mail with their own link to the report.</p>
<button class="primary" type="submit">Invite</button>
</form>`
    : html`<p class="muted">To invite addresses, choose “${accessWords.restricted.choice}” above.</p>`
}
<form method="post" action="${base}/stop" class="stop"${refused?.form === 'stop' ? html` aria-describedby="sharing-error"` : html``}>
${csrf}
<p class="muted">The link stops working at once and every invitation is removed; it cannot be brought back. Sharing again gives a new link.</p>
<label class="choice"><input type="checkbox" name="${STOP_CONFIRM_FIELD}" value="${STOP_CONFIRM_VALUE}" required${refused?.form === 'stop' ? html` aria-invalid="true"` : html``}> Yes, stop sharing: whoever has the link can no longer open the report</label>
<button type="submit" class="danger">Stop sharing</button>
</form>`
    : html``
}
${renderViewsChart(view.views)}
</section>`;
}

export const sharingSection: VerificationSection = {
  id: SHARING_SECTION_ID,
  script: true,
  async render(input) {
    const { ctx, session, verification } = input;
    const [share, views] = await Promise.all([shareOrNull(input), viewAnalytics(ctx.deps, session.principal, verification.id, {})]);
    const refused = input.refused?.section === SHARING_SECTION_ID ? input.refused : undefined;
    const section = renderSharingSection({ appPath: ctx.appPath, verificationId: verification.id, csrfToken: session.csrfToken, share, views, notice: input.query.notice, refused });
    return share ? html`${section}${copyButtonScript(input.nonce)}` : section;
  },
};
