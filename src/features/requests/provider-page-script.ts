import { html } from '../../core/html.js';

/**
 * The provider page's one script, constant (nothing is interpolated into it: the URLs and the
 * size limit are data attributes). It only improves what the markup already does:
 * - the upload form is sent with XMLHttpRequest so a progress bar can follow a large RAW
 *   (fetch cannot report upload progress); the POST answers 303 to the submission's page,
 *   which the browser then opens. An error answer is an HTML page: its `.form-error` text (or
 *   its heading) is shown above the form. Without script the form posts natively.
 * - a submission still being verified polls its status URL (JSON `{"status": ...}`) and
 *   reloads the page when the status changes, so the server renders every state; without
 *   script the page has a "Check again" link.
 */
export const SCRIPT = html`
(function () {
  var form = document.getElementById('upload-form');
  var errorBox = document.getElementById('form-error');
  function showError(text) {
    errorBox.textContent = text;
    errorBox.hidden = false;
    errorBox.focus();
  }
  // The answer's words by pattern, not by parsing it as a document (that would apply its
  // inline style, which this page's CSP refuses): the markup escapes only these five characters.
  function text(markup) {
    return markup.replace(/<[^>]*>/g, '').replace(/&(lt|gt|quot|#39|amp);/g, function (m, name) {
      return { lt: '<', gt: '>', quot: '"', '#39': "'", amp: '&' }[name];
    }).trim();
  }
  function messageOf(responseText) {
    var match = /<p id="form-error"[^>]*>([\\s\\S]*?)<\\/p>/.exec(responseText) || /<h1[^>]*>([\\s\\S]*?)<\\/h1>/.exec(responseText);
    return (match && text(match[1])) || 'The upload was not accepted. Please try again.';
  }
  if (form && window.XMLHttpRequest && window.FormData) {
    form.addEventListener('submit', function (event) {
      event.preventDefault();
      var max = Number(form.getAttribute('data-max-bytes'));
      var inputs = form.querySelectorAll('input[type=file]');
      for (var i = 0; i < inputs.length; i++) {
        var file = inputs[i].files && inputs[i].files[0];
        if (file && max && file.size > max) {
          showError(file.name + ' is larger than the ' + form.getAttribute('data-max-words') + ' the service accepts.');
          return;
        }
      }
      var button = form.querySelector('button[type=submit]');
      var upload = document.getElementById('upload');
      var bar = document.getElementById('upload-progress');
      var words = document.getElementById('upload-words');
      errorBox.hidden = true;
      button.disabled = true;
      upload.hidden = false;
      var xhr = new XMLHttpRequest();
      xhr.open('POST', form.action);
      xhr.upload.addEventListener('progress', function (e) {
        if (!e.lengthComputable) return;
        var percent = Math.floor((e.loaded / e.total) * 100);
        bar.value = percent;
        words.textContent = percent < 100 ? percent + ' % sent' : 'Sent. Checking the files…';
      });
      xhr.addEventListener('load', function () {
        if (xhr.status >= 200 && xhr.status < 300 && xhr.responseURL && xhr.responseURL !== form.action) {
          window.location.assign(xhr.responseURL);
          return;
        }
        upload.hidden = true;
        button.disabled = false;
        showError(messageOf(xhr.responseText));
      });
      xhr.addEventListener('error', function () {
        upload.hidden = true;
        button.disabled = false;
        showError('The upload did not reach the service. Check your connection and try again.');
      });
      xhr.send(new FormData(form));
    });
  }
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
