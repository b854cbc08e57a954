import { html, type Html } from '../core/text/html.js';

/**
 * Copy buttons for read-only fields (a share link, a request's link, a new API key): one script for
 * every page that has one. A button names its field, its status line and what to say once copied
 * in data attributes (copyButton below), so the script itself is constant. It is hidden in the
 * HTML and shown only when the script runs (without one the field's text is selectable). Where the
 * clipboard is refused (an insecure origin, an old browser) the field is selected and the status
 * says to copy it with the keyboard.
 */
export function copyButton(ids: { button: string; field: string; status: string }, label: string, copied: string): Html {
  return html`<button type="button" id="${ids.button}" data-copy-field="${ids.field}" data-copy-status="${ids.status}" data-copied="${copied}" hidden>${label}</button>`;
}

export function copyButtonScript(nonce: string): Html {
  return html`<script nonce="${nonce}">
(function () {
  document.querySelectorAll('button[data-copy-field]').forEach(function (button) {
    var field = document.getElementById(button.dataset.copyField);
    var status = document.getElementById(button.dataset.copyStatus);
    if (!field || !status) return;
    button.hidden = false;
    field.addEventListener('focus', function () { field.select(); });
    button.addEventListener('click', function () {
      field.select();
      var done = function () { status.textContent = button.dataset.copied; };
      var fallback = function () {
        try { if (document.execCommand('copy')) { done(); return; } } catch (e) {}
        status.textContent = 'Selected: press Ctrl+C (or ⌘C) to copy.';
      };
      if (navigator.clipboard && navigator.clipboard.writeText) navigator.clipboard.writeText(field.value).then(done, fallback);
      else fallback();
    });
  });
})();
</script>`;
}
