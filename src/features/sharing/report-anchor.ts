import { html, type Html } from '../../core/text/html.js';
import type { SharedReport } from './report.js';
import { fact, time } from './report-values.js';

/**
 * Whether the record is anchored (docs/audit.md "Anchors"), in plain words: when its batch was
 * sealed, the batch, the start of its root, and whether an independent timestamp authority
 * confirmed the time. The full proof is in the Verification's `anchored_in`; the history page
 * (the auditor's, same access as the report) checks it in the browser.
 */
export function anchorSection(report: SharedReport, historyUrl: string): Html {
  const anchor = report.anchor;
  return html`<section class="card" aria-labelledby="anchor-title">
<h2 id="anchor-title">Tamper-evident record</h2>
${anchor
  ? html`<p>This record is anchored: its fingerprint was sealed with ${anchor.tree_size === 1 ? 'no other record' : `${anchor.tree_size - 1} other record${anchor.tree_size === 2 ? '' : 's'}`} under a root the service signed, so a later change to it would show.</p>
<dl class="facts">
${fact('Anchored', time(anchor.sealed_at))}
${fact('Batch', `number ${anchor.batch_id}`)}
${fact('Root (start)', html`<code class="hash">${anchor.root.slice(0, 16)}…</code>`)}
${fact('Timestamp', anchor.timestamped ? 'confirmed by an independent timestamp authority' : anchor.timestamp_failure ? 'none: the timestamp authority could not be reached' : 'none (the batch is signed by the service only)')}
</dl>`
  : html`<p>This record is not yet anchored. Completed verifications are sealed in batches every few minutes; open this report again later.</p>`}
<p><a href="${historyUrl}">See the full history and check it in your browser</a>: every step recorded for this verification, each linked to the one before, and the anchor's proof.</p>
</section>`;
}
