import { contentSecurityPolicy, html, htmlDocument, joinHtml, privatePageHeaders } from '../../core/text/html.js';
import { replayFiles } from './assets.js';
import { ICON, STYLE } from '../sharing/index.js';
import type { HistoryAnchor, HistoryEvent, HistoryModel } from './history.js';

/**
 * The auditor's page (docs/audit.md): a verification's history as a timeline (what, when, who,
 * where it was processed, each event's hash linked to the one before), its anchors, and the
 * offline verifier's checks run in the browser by this origin's compiled audit-verify.js. Pure
 * rendering of a HistoryModel in the report page's style; everything but the checks is there
 * without JavaScript, and the page says how to run the same checks with the CLI.
 */

/**
 * The report page's headers, plus what the checks need: the verifier module from this origin
 * (script-src 'self'), and the bundle and certificate fetched from it (connect-src 'self').
 */
export function historyPageHeaders(nonce: string): Record<string, string> {
  return {
    'Content-Security-Policy': contentSecurityPolicy("img-src 'self' data:", `style-src 'nonce-${nonce}'`, `script-src 'self' 'nonce-${nonce}'`, "connect-src 'self'"),
    ...privatePageHeaders,
  };
}

const EXTRA_STYLE = html`
.timeline{list-style:none;margin:0;padding:0}
.timeline>li{border-left:3px solid var(--line);margin:0 0 0 .5rem;padding:0 0 1rem 1rem;position:relative}
.timeline>li::before{content:"";position:absolute;left:-.55rem;top:.35rem;width:.8rem;height:.8rem;border-radius:50%;background:var(--card);border:3px solid #0b57a4}
.timeline>li:target{background:#fff8e1}
.timeline h3{margin:0 0 .25rem}
.timeline .type{color:var(--muted);font-size:.875rem;font-weight:400}
.checks,.anchors{list-style:none;margin:.5rem 0 0;padding:0}
.anchors>li+li{border-top:1px solid var(--line);padding-top:.5rem;margin-top:.5rem}
.checks li{border-top:1px solid var(--line);padding:.5rem 0;overflow-wrap:anywhere}
.checks li:first-child{border-top:0}
.checks .outcome{display:inline-block;min-width:3.5rem}
.checks p{margin:.15rem 0 0;font-size:.925rem}
#check-status{font-weight:700}
#checks[data-outcome="broken"] #check-status{color:#b42318}
#checks[data-outcome="passed"] #check-status{color:#0f6b34}
.timeline>li.broken{border-left-color:#b42318}
.timeline>li.broken::before{border-color:#b42318;background:#b42318}
.broken-note{margin:0 0 .25rem;color:#b42318;font-weight:700}
`;

/**
 * Runs the checks (a classic script under the nonce; the verifier is imported from this origin):
 * fetches the bundle and the published certificate, lists each check with Pass or Fail, and says
 * in a status line whether all passed or which link is broken.
 */
const CHECK_SCRIPT = html`(async () => {
  const root = document.getElementById('checks');
  const list = root.querySelector('.checks');
  const status = document.getElementById('check-status');
  const fetched = async (url, read) => {
    const response = await fetch(url, { credentials: 'same-origin', cache: 'no-store' });
    if (!response.ok) throw new Error(url.split('?')[0].split('/').pop() + ' answered ' + response.status);
    return read(response);
  };
  status.textContent = 'Checking…';
  try {
    const { verifyBundle } = await import(root.dataset.verifier);
    // The read models' folds, beside the verifier: each stream kind's replay (assets.ts replayFiles).
    const replays = {};
    for (const [kind, file] of Object.entries(JSON.parse(root.dataset.replays))) replays[kind] = (await import(new URL(file, new URL(root.dataset.verifier, location.href)).href)).replayStream;
    const [bundle, pem] = await Promise.all([fetched(root.dataset.bundle, (r) => r.json()), fetched(root.dataset.certificate, (r) => r.text())]);
    const checks = await verifyBundle(bundle, pem, replays);
    list.replaceChildren(...checks.map((check) => {
      const item = document.createElement('li');
      item.dataset.check = check.name;
      item.dataset.ok = String(check.ok);
      const outcome = document.createElement('span');
      outcome.className = 'outcome ' + (check.ok ? 'pass' : 'fail');
      outcome.textContent = check.ok ? 'Pass' : 'Fail';
      const name = document.createElement('strong');
      name.textContent = check.name;
      const detail = document.createElement('p');
      detail.textContent = check.detail;
      item.append(outcome, ' ', name, detail);
      return item;
    }));
    const broken = checks.find((check) => !check.ok);
    root.dataset.outcome = broken ? 'broken' : 'passed';
    status.textContent = broken ? 'Broken link: ' + broken.name + '. Nothing after it was checked.' : 'All ' + checks.length + ' checks passed.';
    // A broken chain names its revision: mark that event in the timeline and link to it.
    const revision = broken && broken.name.startsWith('hash chain ') ? /^revision ([0-9]+)/.exec(broken.detail) : null;
    const stream = broken ? broken.name.slice('hash chain '.length) : '';
    const event = revision && [...document.querySelectorAll('section[data-stream]')].find((s) => s.dataset.stream === stream)?.querySelector('li[data-revision="' + revision[1] + '"]');
    if (event) {
      event.classList.add('broken');
      const note = document.createElement('p');
      note.className = 'broken-note';
      note.textContent = 'This event does not match its recorded hashes.';
      event.querySelector('h3').after(note);
      const link = document.createElement('a');
      link.href = '#' + event.id;
      link.textContent = 'See the event.';
      status.append(' ', link);
    }
  } catch (error) {
    root.dataset.outcome = 'error';
    status.textContent = 'The checks could not run: ' + error.message;
  }
})();
`;

const utc = (iso: string) => (iso ? `${iso.slice(0, 10)} ${iso.slice(11, 19)} UTC` : '');

function eventItem(event: HistoryEvent) {
  return html`<li id="${event.anchor}" data-revision="${event.revision}">
<h3>${event.revision} · ${event.what} <span class="type">${event.type}</span></h3>
<dl class="facts">
<dt>When</dt><dd><time datetime="${event.when}">${utc(event.when)}</time></dd>
<dt>Who</dt><dd>${event.who}</dd>
<dt>Processed in</dt><dd>${event.region}</dd>
<dt>Request</dt><dd><code class="hash">${event.correlation}</code></dd>
<dt>Hash</dt><dd><code class="hash">${event.hash}</code></dd>
<dt>Previous</dt><dd>${
    event.previous === null
      ? html`none: the first event of its stream`
      : event.previous.anchor
        ? html`<a href="#${event.previous.anchor}"><code class="hash">${event.previous.hash}</code></a>`
        : html`<code class="hash">${event.previous.hash}</code> (not in this history)`
  }</dd>
</dl>
</li>`;
}

function anchorItem(anchor: HistoryAnchor) {
  return html`<li>
<dl class="facts">
<dt>Batch</dt><dd><code class="hash">${anchor.batch_id}</code></dd>
<dt>Sealed</dt><dd><time datetime="${anchor.sealed_at}">${utc(anchor.sealed_at)}</time></dd>
<dt>Seals</dt>${joinHtml(anchor.sealed_events.map((e) => html`<dd>${e.anchor ? html`<a href="#${e.anchor}">event ${e.revision}</a>` : html`event ${e.revision}`} of ${e.stream}, hash <code class="hash">${e.hash}</code></dd>`))}
<dt>Merkle root</dt><dd><code class="hash">${anchor.root}</code> (${anchor.leaf})</dd>
<dt>Timestamp</dt><dd>${anchor.timestamp ?? 'none (no timestamp authority configured)'}</dd>
</dl>
</li>`;
}

export function renderHistoryPage({ model, serviceName, nonce }: { model: HistoryModel; serviceName: string; nonce: string }): string {
  const { verification: v, links } = model;
  const body = html`<div class="page">
<header class="site"><span class="brand">${serviceName}</span><span class="note">Audit history</span></header>
<main>
<h1>History of a verification</h1>
<p class="subtitle">${v.name}${v.short_code ? html` · ${v.short_code}` : html``}${links.back ? html` · <a href="${links.back.href}">${links.back.label}</a>` : html``}</p>
<section class="card" id="checks" aria-labelledby="checks-title" data-bundle="${links.bundle}" data-certificate="${links.certificate}" data-verifier="${links.verifier}" data-replays="${JSON.stringify(replayFiles)}">
<h2 id="checks-title">Is this history intact?</h2>
<p>Your browser checks every hash below, that the last one is sealed in a signed Merkle tree, and that the signature comes from the service’s published certificate.</p>
<p id="check-status" role="status">These checks run in your browser with JavaScript.</p>
<ol class="checks"></ol>
<p class="muted">For a check that does not rely on this page, <a href="${links.bundle}" download="audit-bundle.json">download the evidence</a> and the <a href="${links.certificate}">certificate</a>, then run <code>photoverify audit verify --file audit-bundle.json --trust certificate.pem</code>.</p>
</section>
<section class="card" aria-labelledby="anchors-title">
<h2 id="anchors-title">Anchors</h2>
${model.anchors.length ? html`<ul class="anchors">${joinHtml(model.anchors.map(anchorItem))}</ul>` : html`<p>Not anchored yet: completed verifications are sealed every few minutes.</p>`}
</section>
${joinHtml(
  model.streams.map(
    (s, i) => html`<section class="card" aria-labelledby="stream-${i}" data-stream="${s.stream}">
<h2 id="stream-${i}">${s.title}</h2>
<p class="muted">Stream <code class="hash">${s.stream}</code>, ${s.events.length} event(s), oldest first. Each hash covers the event and the hash before it.</p>
<ol class="timeline">${joinHtml(s.events.map(eventItem))}</ol>
</section>`,
  ),
)}
</main>
<footer>Times are UTC. People are shown by the first characters of their id only.</footer>
</div>`;
  return htmlDocument({
    title: `History: ${v.name} · ${serviceName}`,
    nonce,
    style: html`${STYLE}${EXTRA_STYLE}`,
    icon: ICON,
    private: true,
    body,
    script: CHECK_SCRIPT,
  });
}
