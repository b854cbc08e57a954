import { AppError } from '../core/errors.js';
import { html, type Html } from '../core/text/html.js';
import { getPsdExport, type PsdExportStatusView } from '../features/psd-export/index.js';
import { getMonthlyUsage } from '../features/usage/index.js';
import type { DetailView } from './pages.js';
import { CSRF_FIELD } from './session.js';
import type { VerificationSection, VerificationSectionInput } from './verification-section.js';

/**
 * The verification page's files section (issue 27, must-work 2): the image and the badge
 * rendition through the app's own routes (share-routes.ts: the session cookie lives under /app,
 * the API takes header credentials), and the layered PSD export (request, status, download), each
 * by the use case its REST route calls.
 */

export const FILES_SECTION_ID = 'files';

export const FILES_NOTICES = {
  'psd-requested': 'PSD export requested: it is being made. Reload this page to see when it is ready.',
} as const;

const psdStatusWords: Record<PsdExportStatusView['status'], string> = {
  pending: 'Waiting to start.',
  queued: 'Queued: it will be made shortly.',
  in_progress: 'Being made now.',
  completed: 'Ready.',
  failed: 'The export failed.',
};

async function psdOrNull(input: VerificationSectionInput): Promise<PsdExportStatusView | null> {
  try {
    return await getPsdExport(input.ctx.deps, input.session.principal, input.verification.id);
  } catch (error) {
    if (error instanceof AppError && error.code === 'PSD_EXPORT_NOT_FOUND') return null;
    throw error;
  }
}

const megabytes = (bytes: number) => `${(bytes / 1_000_000).toFixed(1)} MB`;
const when = (iso: string) => `${iso.slice(0, 16).replace('T', ' ')} UTC`;

export interface FilesView {
  appPath: string;
  csrfToken: string;
  verification: Pick<DetailView, 'id' | 'status' | 'result' | 'verification_mode'>;
  psd: PsdExportStatusView | null;
  /** Whether the account's plan includes PSD exports (the usage view's `psd_exports.entitled`). */
  psdEntitled: boolean;
  notice?: string;
  refused?: { form?: string; message: string };
}

function renderPsd(view: FilesView): Html {
  const { verification: v, psd, appPath, csrfToken } = view;
  const base = `${appPath}/verifications/${v.id}/psd-export`;
  const csrf = html`<input type="hidden" name="${CSRF_FIELD}" value="${csrfToken}">`;
  const request = (label: string) => html`<form method="post" action="${base}">${csrf}<button type="submit" class="primary">${label}</button></form>`;
  const intro = html`<p class="muted">A Photoshop file with the photo, the camera RAW rendered to match it and a hidden difference layer, for a flicker comparison. Part of the Professional and Enterprise plans; each export can be downloaded ${psd?.downloads_limit ?? 5} times within 30 days.</p>`;
  if (v.verification_mode !== 'raw_pair') return html`<p class="muted">Only a photo verified together with its camera RAW can be exported as a layered PSD.</p>`;
  if (v.status !== 'completed') return html`<p class="muted">The export can be asked for once the verification has completed.</p>`;
  if (!psd && !view.psdEntitled) return html`${intro}<p>Your account’s plan does not include it. An admin can change the plan on <a href="${appPath}/account/usage">Usage and plan</a>.</p>`;
  if (!psd) return html`${intro}${request('Request the PSD export')}`;
  // The status says it: an expired export stays `completed` with `error` saying it expired (view.ts).
  const expired = psd.status === 'completed' && psd.error !== null;
  const facts = html`<p class="psd-status"><strong>${expired ? 'Expired.' : psdStatusWords[psd.status]}</strong>${psd.error ? html` ${psd.error}` : html``}</p>`;
  if (psd.status === 'failed' || expired) return html`${intro}${facts}${request('Make it again (free of charge)')}`;
  if (psd.status !== 'completed') return html`${intro}${facts}<p><a href="${appPath}/verifications/${v.id}#${FILES_SECTION_ID}">Reload to see its progress</a></p>`;
  const left = psd.downloads_limit - psd.downloads_used;
  return html`${intro}${facts}
<dl class="facts">
${psd.file_size_bytes !== null ? html`<dt>Size</dt><dd>${megabytes(psd.file_size_bytes)}${psd.canvas_width && psd.canvas_height ? html`, ${psd.canvas_width} × ${psd.canvas_height} pixels` : html``}</dd>` : html``}
<dt>Downloads</dt><dd>${psd.downloads_used} of ${psd.downloads_limit} used</dd>
${psd.expires_at ? html`<dt>Available until</dt><dd>${when(psd.expires_at)}</dd>` : html``}
</dl>
${left > 0 ? html`<form method="post" action="${base}/download">${csrf}<button type="submit" class="primary">Download the PSD (${left} ${left === 1 ? 'download' : 'downloads'} left)</button></form>` : html`<p>All its downloads are used.</p>`}`;
}

export function renderFilesSection(view: FilesView): Html {
  const { verification: v, appPath, refused } = view;
  const files = `${appPath}/verifications/${v.id}/download`;
  // fileUrl's own condition for a badge (the route asks it; a missing one would be its 404).
  const badge = v.verification_mode === 'raw_pair' && v.status === 'completed' && v.result === true;
  const notice = view.notice && view.notice in FILES_NOTICES ? html`<p class="notice" role="status">${FILES_NOTICES[view.notice as keyof typeof FILES_NOTICES]}</p>` : html``;
  return html`<section class="card" id="${FILES_SECTION_ID}" aria-labelledby="files-title">
<h2 id="files-title">Files</h2>
${notice}
<ul class="file-links">
<li><a class="button-link" href="${files}/image" download>Download the image</a><span class="muted">The photo as verified: the signed copy with its Content Credentials when there is one, else the file uploaded.</span></li>
<li>${
    badge
      ? html`<a class="button-link" href="${files}/badge" download>Download the badge rendition</a><span class="muted">The photo with the verification badge strip, signed.</span>`
      : html`<span class="muted">No badge rendition: one is made only for a photo and camera RAW pair found authentic.</span>`
  }</li>
<li>${
    v.status === 'completed'
      ? html`<a class="button-link" href="${appPath}/verifications/${v.id}/report.pdf" download>Download the signed PDF report</a><span class="muted">This report as a PDF signed by the service, to file with a decision: any change to it shows in a PDF reader.</span>`
      : html`<span class="muted">The signed PDF report can be downloaded once the verification has a result.</span>`
  }</li>
</ul>
<h3 id="psd-title">Layered PSD export</h3>
${refused ? html`<p class="alert" role="alert">${refused.message}</p>` : html``}
${renderPsd(view)}
</section>`;
}

export const filesSection: VerificationSection = {
  id: FILES_SECTION_ID,
  async render(input) {
    const refused = input.refused?.section === FILES_SECTION_ID ? input.refused : undefined;
    const v = input.verification;
    const exportable = v.verification_mode === 'raw_pair' && v.status === 'completed';
    const [psd, usage] = exportable ? await Promise.all([psdOrNull(input), getMonthlyUsage(input.ctx.deps, input.session.principal, input.session.principal.accountId)]) : [null, null];
    return renderFilesSection({ appPath: input.ctx.appPath, csrfToken: input.session.csrfToken, verification: v, psd, psdEntitled: usage?.psd_exports.entitled ?? false, notice: input.query.notice, refused });
  },
};
