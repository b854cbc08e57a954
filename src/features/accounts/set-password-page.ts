import { contentSecurityPolicy, html, htmlDocument, privatePageHeaders } from '../../core/text/html.js';

/**
 * The page an invitation link opens (D-039): a form for the new password. The token is in the
 * link's fragment, which never reaches the server; the script posts it with the password to
 * the accept endpoint and removes it from the address bar once used. Everything is inline
 * (nonce), nothing leaves the origin.
 */
export function setPasswordHeaders(nonce: string): Record<string, string> {
  return { 'Content-Security-Policy': contentSecurityPolicy(`style-src 'nonce-${nonce}'`, `script-src 'nonce-${nonce}'`, "connect-src 'self'"), ...privatePageHeaders };
}

/** The page's one script; constant, so nothing is interpolated into it (the accept URL is a data attribute). */
const SCRIPT = html`
const form = document.getElementById('set-password');
const status = document.getElementById('status');
const token = location.hash.slice(1);
const say = (text) => { status.textContent = text; };
if (!token) {
  form.hidden = true;
  say('Open this page from the link in your invitation e-mail.');
}
form.addEventListener('submit', async (event) => {
  event.preventDefault();
  const password = form.elements.password.value;
  if (password !== form.elements.confirm.value) return say('The two passwords differ.');
  say('Setting your password…');
  try {
    const res = await fetch(form.dataset.acceptUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ token, password }) });
    const body = await res.json().catch(() => null);
    if (res.ok) {
      form.hidden = true;
      history.replaceState(null, '', location.pathname);
      return say('Your password is set. Log in with ' + body.user.email + ' and your new password.');
    }
    const detail = body && body.detail;
    if (Array.isArray(detail)) return say(detail.map((issue) => issue.msg).join(' '));
    say(detail && detail.message ? detail.message + (detail.suggestion ? ' ' + detail.suggestion : '') : 'Something went wrong; please try again.');
  } catch {
    say('The service could not be reached; please try again.');
  }
});
`;

const STYLE = html`
body { font-family: system-ui, sans-serif; line-height: 1.5; color: #1a1a1a; margin: 0; padding: 1rem; }
main { max-width: 28rem; margin: 2rem auto; }
label { display: block; margin-top: 1rem; font-weight: 600; }
input { display: block; width: 100%; box-sizing: border-box; font: inherit; padding: 0.6rem; margin-top: 0.25rem; border: 1px solid #555; border-radius: 4px; }
button { margin-top: 1.25rem; min-height: 44px; padding: 0.6rem 1.2rem; font: inherit; color: #fff; background: #1d4ed8; border: 0; border-radius: 4px; cursor: pointer; }
:focus-visible { outline: 3px solid #f59e0b; outline-offset: 2px; }
`;

export function renderSetPasswordPage(input: { serviceName: string; acceptUrl: string; nonce: string }): string {
  return htmlDocument({
    title: `Choose your password · ${input.serviceName}`,
    nonce: input.nonce,
    private: true,
    style: STYLE,
    body: html`<main>
<h1>Choose your password</h1>
<p>${input.serviceName} invited you to an account. Choose the password you will log in with.</p>
<noscript><p>This page needs JavaScript to send your password. Without it, send a POST request to ${input.acceptUrl} with the JSON body {"token": "the part of the link after #", "password": "your new password"}.</p></noscript>
<form id="set-password" data-accept-url="${input.acceptUrl}">
<label for="password">New password (10 to 200 characters)</label>
<input id="password" name="password" type="password" autocomplete="new-password" minlength="10" maxlength="200" required>
<label for="confirm">Repeat the password</label>
<input id="confirm" name="confirm" type="password" autocomplete="new-password" minlength="10" maxlength="200" required>
<button type="submit">Set password</button>
</form>
<p id="status" role="status" aria-live="polite"></p>
</main>`,
    script: SCRIPT,
  });
}
