import { html, type Html } from '../../core/text/html.js';
import { FAILED_LABEL, levelWords, reasonWords, verdictWords } from '../verifications/index.js';
import type { SharedReport } from './report.js';

/**
 * The result of a shared verification in words: its assurance level and what it means for this
 * mode, and for an image-only verification the verdict and its reason. The words are the
 * verifications feature's (the MCP tools say the same).
 */
/** A graded report's result in words: its level's, and for an image-only verification its verdict's and reason's (the report page and the PDF report say the same). */
export function resultWords(report: SharedReport, level: NonNullable<SharedReport['assurance_level']>) {
  const image = report.verification_mode === 'image_only';
  return {
    words: levelWords[level],
    verdict: report.verdict && image ? verdictWords[report.verdict] : undefined,
    reason: report.verdict_reason && image ? reasonWords[report.verdict_reason] : undefined,
  };
}

/** `live`: the page follows the verification and reloads by itself (the web app's), so the reader need not. */
export function verdictSection(report: SharedReport, live = false): Html {
  const level = report.assurance_level;
  const mode = report.verification_mode;
  if (report.status === 'failed') {
    // A grey state of its own (never Flagged's red): what happened, whose fault, what to do next (verifications' explainFailure).
    const failure = report.failure;
    return html`<section class="card verdict" aria-labelledby="verdict-title" data-state="failed"${failure ? html` data-fault="${failure.fault}"` : html``}>
<h2 id="verdict-title" class="visually-hidden">Result</h2>
<p class="level state-failed">${failure?.label ?? FAILED_LABEL}</p>
${failure
  ? html`<p class="meaning">${failure.summary}</p>
<p class="reason"><strong>What to do next:</strong> ${failure.next}</p>
${failure.recorded ? html`<p class="muted">What the service recorded: ${failure.recorded}</p>` : html``}`
  : html`<p class="meaning">The verification could not be completed${report.failure_reason ? html`: ${report.failure_reason}` : '.'}</p>`}
</section>`;
  }
  if (!level) {
    return html`<section class="card verdict" aria-labelledby="verdict-title">
<h2 id="verdict-title" class="visually-hidden">Result</h2>
<p class="level level-unrated">In progress</p>
<p class="meaning">${live ? 'The verification is still running. Its result appears here when it is ready.' : 'The verification is still running. Reload this page in a minute to see the result.'}</p>
</section>`;
  }
  const { words, verdict, reason } = resultWords(report, level);
  return html`<section class="card verdict" aria-labelledby="verdict-title">
<h2 id="verdict-title">Assurance level</h2>
<p class="level level-${level}" data-level="${level}">${words.label}</p>
<p class="meaning">${mode === 'raw_pair' ? words.pair : words.imageOnly}</p>
${verdict
  ? html`<h2>Verdict</h2>
<p class="verdict-label" data-verdict="${report.verdict}">${verdict.label}</p>
<p class="meaning">${verdict.meaning}</p>
${reason ? html`<p class="reason"><strong>Why:</strong> ${reason}</p>` : html``}`
  : report.assurance_reason
    ? html`<p class="reason"><strong>Why:</strong> ${report.assurance_reason}</p>`
    : html``}
</section>`;
}
