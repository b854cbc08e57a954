import { html } from '../../core/text/html.js';

/**
 * The provider page's own script, constant (nothing is interpolated into it: the status URL is a
 * data attribute): a submission still being verified polls its status URL (JSON
 * `{"status": ...}`) and reloads the page when the status changes, so the server renders every
 * state; without script the page has a "Check again" link. The upload form's script is the
 * verifications feature's (UPLOAD_FORM_SCRIPT), the same as the web app's upload page.
 */
export const PROGRESS_SCRIPT = html`
(function () {
  var progress = document.getElementById('progress');
  var statusUrl = progress && progress.getAttribute('data-status-url');
  if (statusUrl && window.fetch) {
    var current = progress.getAttribute('data-status');
    var started = Date.now();
    var poll = function () {
      fetch(statusUrl, { headers: { accept: 'application/json' }, cache: 'no-store', credentials: 'omit' })
        .then(function (r) { return r.ok ? r.json() : null; })
        .then(function (body) {
          if (body && body.status && body.status !== current) { window.location.reload(); return; }
          schedule();
        }, schedule);
    };
    // Every few seconds at first (most verifications finish within a minute), then every 20 s.
    var schedule = function () { setTimeout(poll, Date.now() - started < 120000 ? 4000 : 20000); };
    schedule();
  }
})();
`;
