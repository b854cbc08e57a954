import { html, type Html } from '../core/text/html.js';
import { FLICKER_SCRIPT, renderReportSections, type SharedFileKind, type SharedReport } from '../features/sharing/index.js';
import { progressOf, progressStepWords, PROGRESS_STEPS } from '../features/verifications/index.js';
import type { DetailView } from './pages.js';
import { appPage, type Viewer } from './shell.js';

/**
 * The verification page of the web app (issue 27, must-work 2): the report a share link shows
 * (sharing's own sections: the level and verdict in plain words, the analyses, the heatmap and
 * the flicker comparison, the Content Credentials, the badge, the hashes, the tamper-evident
 * record), with the owner's files served under /app, then the account's own sections. While the
 * verification is not finished the page follows it: a script follows its progress stream (server-sent
 * events, falling back to the status route) and reloads once finished; without JavaScript the page
 * refreshes itself every few seconds.
 */

/** Where a page's file is served to the signed-in owner (routes in report-routes.ts). */
export const ownFilePath = (appPath: string, verificationId: string, kind: SharedFileKind) => `${appPath}/verifications/${verificationId}/files/${kind}`;
export const statusPath = (appPath: string, verificationId: string) => `${appPath}/verifications/${verificationId}/status`;
export const progressPath = (appPath: string, verificationId: string) => `${appPath}/verifications/${verificationId}/progress`;
export const historyPath = (appPath: string, verificationId: string) => `${appPath}/verifications/${verificationId}/history`;

/** Statuses after which nothing changes by itself. */
export const TERMINAL = new Set(['completed', 'failed']);

/** Seconds between two refreshes of a page without JavaScript, and between two status checks with it. */
export const REFRESH_SECONDS = 4;

const progressWords: Record<string, { title: string; text: string }> = {
  pending: { title: 'Waiting for the files', text: 'The verification starts as soon as its files have arrived.' },
  queued: { title: 'Queued', text: 'The analysis starts in a moment.' },
  in_progress: { title: 'Analysing', text: 'The photo is being compared with its camera RAW file, or its credentials checked.' },
};

/**
 * The progress card of an unfinished verification: the steps the event log records
 * (verifications' progressOf, the same one the live stream sends), the one reached marked.
 * Without JavaScript the `noscript` refresh reloads the page (browsers honour it in the body;
 * with scripting on it is inert text, so it neither races the script nor trips axe's
 * meta-refresh rule); with JavaScript, PROGRESS_SCRIPT follows the stream.
 */
function progressSection(v: DetailView, appPath: string): Html {
  const words = progressWords[v.status] ?? { title: v.status, text: '' };
  const { reached } = progressOf({ status: v.status, assurance_level: v.assurance_level });
  const current = reached.at(-1);
  return html`<section class="card progress" id="progress" aria-labelledby="progress-title" data-status="${v.status}" data-events-url="${progressPath(appPath, v.id)}" data-status-url="${statusPath(appPath, v.id)}" data-interval="${REFRESH_SECONDS * 1000}">
<h2 id="progress-title">Not finished yet</h2>
<ol class="steps">${PROGRESS_STEPS.map((step) => html`<li data-step="${step}" class="${reached.includes(step) ? 'done' : ''}"${current === step ? html` aria-current="step"` : html``}>${progressStepWords[step]}</li>`)}</ol>
<p id="progress-status" role="status"><strong>${words.title}.</strong> ${words.text}</p>
<p class="muted">This page updates by itself when the result is ready. <a href="${appPath}/verifications/${v.id}">Reload now</a></p>
<noscript><meta http-equiv="refresh" content="${REFRESH_SECONDS}"></noscript>
</section>`;
}

/**
 * Follows an unfinished verification: its progress stream (server-sent events from the event
 * log, report-routes.ts) marks each step as it is recorded and names the level as soon as it is
 * graded; once finished the page reloads once, to show the report. Where the stream cannot be
 * had (no EventSource, a proxy that buffers it, three failed connections) it falls back to asking
 * the status route every few seconds. A redirect or an error answer (signed out, gone) reloads,
 * so the page shows why.
 */
export const PROGRESS_SCRIPT = html`
(function () {
  var box = document.getElementById('progress');
  if (!box) return;
  var shown = box.getAttribute('data-status');
  var every = Number(box.getAttribute('data-interval')) || 4000;
  var line = document.getElementById('progress-status');
  var done = false;
  var source = null;
  var reloading = false;
  function reload() {
    if (reloading) return;
    reloading = true;
    if (source) source.close();
    location.reload();
  }
  function finish(answer) {
    if (done) return;
    done = true;
    line.textContent = answer.status === 'completed' ? 'Finished' + (answer.label ? ': ' + answer.label : '') + '. Showing the report…' : answer.status === 'failed' ? 'Not completed. Showing why…' : 'Updated: loading…';
    // The stream ends by itself after its last event: reload then (its error event), not while it is still open.
    if (source) setTimeout(reload, 2000);
    else reload();
  }
  function mark(answer) {
    var steps = box.querySelectorAll('li[data-step]');
    var last = answer.reached[answer.reached.length - 1];
    for (var i = 0; i < steps.length; i++) {
      var step = steps[i].getAttribute('data-step');
      steps[i].className = answer.reached.indexOf(step) >= 0 ? 'done' : '';
      if (step === last) steps[i].setAttribute('aria-current', 'step'); else steps[i].removeAttribute('aria-current');
    }
    if (answer.status === 'completed' || answer.status === 'failed') finish(answer);
    else if (answer.label) line.textContent = 'Graded: ' + answer.label + '. Preparing the report…';
    else if (answer.status === 'in_progress') line.textContent = 'Analysing: the photo is being compared with its camera RAW file, or its credentials checked.';
  }
  function poll() {
    fetch(box.getAttribute('data-status-url'), { credentials: 'same-origin', cache: 'no-store', headers: { accept: 'application/json' } })
      .then(function (response) {
        if (!response.ok || response.redirected) { location.reload(); return; }
        return response.json().then(function (answer) {
          if (answer.status !== shown) finish(answer);
          else setTimeout(poll, every);
        });
      })
      .catch(function () { setTimeout(poll, every * 3); });
  }
  if (!window.EventSource) { setTimeout(poll, every); return; }
  var failures = 0;
  source = new EventSource(box.getAttribute('data-events-url'));
  source.addEventListener('progress', function (event) {
    failures = 0;
    mark(JSON.parse(event.data));
  });
  source.onerror = function () {
    if (done) { reload(); return; }
    failures += 1;
    if (failures >= 3) { source.close(); source = null; setTimeout(poll, every); }
  };
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

const ENTITIES: Record<string, string> = { '&amp;': '&', '&lt;': '<', '&gt;': '>', '&quot;': '"', '&#39;': "'" };

/**
 * "On this page": a link to each section the page shows, in its order, read from the sections'
 * own headings (each card's <h2 id>), so a section added to the report or to
 * VERIFICATION_SECTIONS appears here without a second list of them.
 */
function sectionNav(parts: readonly Html[]): Html {
  const headings = parts.flatMap((part) =>
    [...part.value.matchAll(/<h2 id="([A-Za-z0-9_-]+)"[^>]*>(.*?)<\/h2>/gs)].map((m) => ({ id: m[1]!, title: m[2]!.replace(/<[^>]*>/g, '').replace(/&(amp|lt|gt|quot|#39);/g, (e) => ENTITIES[e]!).trim() })),
  );
  if (headings.length < 3) return html``;
  // Folded: on a phone a dozen links would push the photo and its verdict below the fold.
  return html`<nav class="on-page" aria-label="On this page"><details><summary>On this page: ${headings.length} sections</summary><ul>${headings.map((h) => html`<li><a href="#${h.id}">${h.title}</a></li>`)}</ul></details></nav>`;
}

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
${sectionNav([report.html, ...input.sections])}
${following ? progressSection(v, appPath) : html``}
${report.html}
${input.sections}
</main>
${scripts.map((script) => html`<script nonce="${nonce}">${script}</script>`)}`,
  });
}
