import { html, type Html } from '../core/text/html.js';
import { FLICKER_SCRIPT, renderReportSections, type SharedFileKind, type SharedReport } from '../features/sharing/index.js';
import type { DetailView } from './pages.js';
import { appPage, type Viewer } from './shell.js';

/**
 * The verification page of the web app (issue 27, must-work 2): the report a share link shows
 * (sharing's own sections: the level and verdict in plain words, the analyses, the heatmap and
 * the flicker comparison, the Content Credentials, the badge, the hashes, the tamper-evident
 * record), with the owner's files served under /app, then the account's own sections. While the
 * verification is not finished the page follows it: a script asks the app's status route and
 * reloads when the status changes; without JavaScript the page refreshes itself every few seconds.
 */

/** Where a page's file is served to the signed-in owner (routes in report-routes.ts). */
export const ownFilePath = (appPath: string, verificationId: string, kind: SharedFileKind) => `${appPath}/verifications/${verificationId}/files/${kind}`;
export const statusPath = (appPath: string, verificationId: string) => `${appPath}/verifications/${verificationId}/status`;
export const historyPath = (appPath: string, verificationId: string) => `${appPath}/verifications/${verificationId}/history`;

/** Statuses after which nothing changes by itself. */
export const TERMINAL = new Set(['completed', 'failed']);

/** Seconds between two refreshes of a page without JavaScript, and between two status checks with it. */
export const REFRESH_SECONDS = 4;

const progressWords: Record<string, { title: string; text: string }> = {
  pending: { title: 'Waiting for the files', text: 'The verification starts as soon as its files have arrived.' },
  queued: { title: 'Queued', text: 'The analysis starts in a moment.' },
  in_progress: { title: 'Analysing', text: 'The photo is being analysed. This usually takes less than a minute.' },
};

/**
 * The status line of an unfinished verification. Without JavaScript the `noscript` refresh
 * reloads the page (browsers honour it in the body; with scripting on it is inert text, so it
 * neither races the script nor trips axe's meta-refresh rule); with JavaScript, PROGRESS_SCRIPT.
 */
function progressSection(v: DetailView, appPath: string): Html {
  const words = progressWords[v.status] ?? { title: v.status, text: '' };
  return html`<section class="card progress" id="progress" aria-labelledby="progress-title" data-status="${v.status}" data-status-url="${statusPath(appPath, v.id)}" data-interval="${REFRESH_SECONDS * 1000}">
<h2 id="progress-title">Not finished yet</h2>
<p id="progress-status" role="status"><strong>${words.title}.</strong> ${words.text}</p>
<p class="muted">This page updates by itself when the result is ready. <a href="${appPath}/verifications/${v.id}">Reload now</a></p>
<noscript><meta http-equiv="refresh" content="${REFRESH_SECONDS}"></noscript>
</section>`;
}

/**
 * Follows an unfinished verification: asks the status route every few seconds (same origin, the
 * session's cookie) and reloads the page when the status is no longer the one shown. A redirect
 * or an error answer (signed out, gone) reloads too, so the page shows why; a network failure
 * waits longer and tries again.
 */
export const PROGRESS_SCRIPT = html`
(function () {
  var box = document.getElementById('progress');
  if (!box) return;
  var url = box.getAttribute('data-status-url');
  var shown = box.getAttribute('data-status');
  var every = Number(box.getAttribute('data-interval')) || 4000;
  var line = document.getElementById('progress-status');
  function check() {
    fetch(url, { credentials: 'same-origin', cache: 'no-store', headers: { accept: 'application/json' } })
      .then(function (response) {
        if (!response.ok || response.redirected) { location.reload(); return; }
        return response.json().then(function (answer) {
          if (answer.status !== shown) {
            line.textContent = answer.status === 'completed' ? 'Finished: showing the result…' : 'Updated: loading…';
            location.reload();
          } else {
            setTimeout(check, every);
          }
        });
      })
      .catch(function () { setTimeout(check, every * 3); });
  }
  setTimeout(check, every);
})();
`;

export interface VerificationPageInput {
  serviceName: string;
  nonce: string;
  appPath: string;
  viewer: Viewer;
  /** What GET /v1/verifications/{id} answers. */
  verification: DetailView;
  /** The owner's report of it (sharing's openOwnReport). */
  report: SharedReport;
  /** The account's sections (VERIFICATION_SECTIONS), rendered, in order. */
  sections: Html[];
}

/** Whether the page runs a script of its own: the progress follower or the flicker comparison. */
export function pageNeedsScript(input: Pick<VerificationPageInput, 'verification' | 'report' | 'appPath'>): boolean {
  return !TERMINAL.has(input.verification.status) || reportSections(input).flicker;
}

const reportSections = ({ verification, report, appPath }: Pick<VerificationPageInput, 'verification' | 'report' | 'appPath'>) =>
  renderReportSections({ report, fileUrl: (kind) => ownFilePath(appPath, verification.id, kind), historyUrl: historyPath(appPath, verification.id), live: !TERMINAL.has(verification.status) });

export function renderVerificationPage(input: VerificationPageInput): string {
  const { verification: v, appPath, nonce } = input;
  const report = reportSections(input);
  const following = !TERMINAL.has(v.status);
  const scripts = [following ? PROGRESS_SCRIPT : null, report.flicker ? FLICKER_SCRIPT : null].filter((s): s is Html => s !== null);
  return appPage({
    serviceName: input.serviceName,
    nonce,
    appPath,
    viewer: input.viewer,
    title: v.name,
    current: '/verifications',
    body: html`<main>
<p><a href="${appPath}/verifications">← All verifications</a></p>
<h1>${v.name}</h1>
${following ? progressSection(v, appPath) : html``}
${report.html}
${input.sections}
</main>
${scripts.map((script) => html`<script nonce="${nonce}">${script}</script>`)}`,
  });
}
