import { html } from '../core/text/html.js';
import { appPage } from './shell.js';
import { CSRF_FIELD } from './session.js';

/** The pages of a browser not signed in (issue 39's front door): sign-up and password reset. Pure rendering. */

interface SignedOutPage {
  serviceName: string;
  nonce: string;
  appPath: string;
  csrfToken: string;
  error?: string;
}

const alert = (error: string | undefined) => (error ? html`<p class="alert" role="alert">${error}</p>` : html``);
const hidden = (token: string) => html`<input type="hidden" name="${CSRF_FIELD}" value="${token}">`;

export interface SignupValues {
  account_name?: string;
  name?: string;
  email?: string;
  plan?: string;
  billing_country?: string;
}

/** The plans a person may choose here, as the API's registration takes them, with their words. */
export function renderSignupPage(ctx: SignedOutPage & { values: SignupValues; plans: readonly { id: string; label: string }[] }): string {
  const v = ctx.values;
  return appPage({
    ...ctx,
    title: 'Create an account',
    body: html`<main class="narrow">
<section class="card" aria-labelledby="sign-up-title">
<h1 id="sign-up-title">Create an account</h1>
<p>An account is your organisation's: you are its first admin and can invite the others later.</p>
${alert(ctx.error)}
<form method="post" action="${ctx.appPath}/signup">
${hidden(ctx.csrfToken)}
<label for="account_name">Organisation name</label>
<input id="account_name" name="account_name" required maxlength="200" autocomplete="organization" value="${v.account_name ?? ''}">
<label for="name">Your name</label>
<input id="name" name="name" required maxlength="120" autocomplete="name" value="${v.name ?? ''}">
<label for="email">Your e-mail address</label>
<input id="email" name="email" type="email" required maxlength="254" autocomplete="username" value="${v.email ?? ''}">
<label for="password">Password (10 to 200 characters)</label>
<input id="password" name="password" type="password" required minlength="10" maxlength="200" autocomplete="new-password">
<label for="plan">Plan</label>
<select id="plan" name="plan">${ctx.plans.map((p) => html`<option value="${p.id}"${p.id === (v.plan ?? 'free') ? html` selected` : html``}>${p.label}</option>`)}</select>
<label for="billing_country">Billing country (two letters, e.g. DE)</label>
<input id="billing_country" name="billing_country" required minlength="2" maxlength="2" autocomplete="country" value="${v.billing_country ?? 'DE'}">
<button class="primary" type="submit">Create the account</button>
</form>
<p class="muted">Already have one? <a href="${ctx.appPath}/login">Sign in</a>.</p>
</section>
</main>`,
  });
}

/** Where a forgotten password starts: the address to send a link to, and what was done. */
export function renderResetRequestPage(ctx: SignedOutPage & { email?: string; sent?: boolean; linkMinutes: number }): string {
  return appPage({
    ...ctx,
    title: 'Forgot your password?',
    body: html`<main class="narrow">
<section class="card" aria-labelledby="reset-title">
<h1 id="reset-title">Forgot your password?</h1>
${alert(ctx.error)}
${
  ctx.sent
    ? html`<p class="notice" role="status">If an account uses ${ctx.email ?? 'that address'}, we have sent a link to it. It works once, for ${ctx.linkMinutes} minutes; it may take a minute to arrive. Ask again if none comes.</p>`
    : html`<p>Enter the address you sign in with. We send a link to choose a new password.</p>`
}
<form method="post" action="${ctx.appPath}/password-reset">
${hidden(ctx.csrfToken)}
<label for="email">E-mail address</label>
<input id="email" name="email" type="email" required maxlength="254" autocomplete="username" value="${ctx.email ?? ''}">
<button class="primary" type="submit">${ctx.sent ? 'Send another link' : 'Send the link'}</button>
</form>
<p class="muted"><a href="${ctx.appPath}/login">Back to sign-in</a></p>
</section>
</main>`,
  });
}

/** The page a reset link opens: the new password, twice. The form posts back to the link's own address. */
export function renderResetChoosePage(ctx: SignedOutPage & { action: string }): string {
  return appPage({
    ...ctx,
    title: 'Choose a new password',
    body: html`<main class="narrow">
<section class="card" aria-labelledby="choose-title">
<h1 id="choose-title">Choose a new password</h1>
${alert(ctx.error)}
<p>Choosing it signs you out on every device, and every access token of yours stops working.</p>
<form method="post" action="${ctx.action}">
${hidden(ctx.csrfToken)}
<label for="password">New password (10 to 200 characters)</label>
<input id="password" name="password" type="password" required minlength="10" maxlength="200" autocomplete="new-password">
<label for="confirm">The new password again</label>
<input id="confirm" name="confirm" type="password" required minlength="10" maxlength="200" autocomplete="new-password">
<button class="primary" type="submit">Set the new password</button>
</form>
</section>
</main>`,
  });
}
