import { html, type Html } from '../core/text/html.js';
import type { MonthlyUsage } from '../features/usage/index.js';
import { appPage, type Viewer } from './shell.js';
import { CSRF_FIELD } from './session.js';
import { copyButton, copyButtonScript } from './copy-button.js';

/**
 * The account's pages (issue 27, must-work 3): API keys, members, usage and plan. Pure
 * rendering over what the use cases answered; every value goes through `html`, which escapes it.
 */

interface AccountPageContext {
  serviceName: string;
  nonce: string;
  appPath: string;
  viewer: Viewer;
}

/** The account section's own navigation, below the app's. */
const SECTIONS = [
  { path: '/account/keys', label: 'API keys' },
  { path: '/account/members', label: 'Members' },
  { path: '/account/usage', label: 'Usage and plan' },
] as const;
export type AccountSection = (typeof SECTIONS)[number]['path'];

const day = (iso: string | null) => (iso ? `${iso.slice(0, 10)}` : '');
const minute = (iso: string) => `${iso.slice(0, 16).replace('T', ' ')} UTC`;

const csrfField = (viewer: Viewer) => html`<input type="hidden" name="${CSRF_FIELD}" value="${viewer.csrfToken}">`;
const alertOf = (message: string | undefined) => (message ? html`<p class="alert" role="alert">${message}</p>` : html``);
const noticeOf = (message: string | undefined) => (message ? html`<p class="notice" role="status">${message}</p>` : html``);

function accountPage(ctx: AccountPageContext & { title: string; section: AccountSection; body: Html; script?: Html }): string {
  return appPage({
    ...ctx,
    current: '/account',
    body: html`<main class="account">
<nav class="subnav" aria-label="Account"><ul>
${SECTIONS.map((s) => html`<li><a href="${ctx.appPath}${s.path}"${s.path === ctx.section ? html` aria-current="page"` : html``}>${s.label}</a></li>`)}
</ul></nav>
${ctx.body}
</main>${ctx.script ?? html``}`,
  });
}

// ---------------------------------------------------------------- API keys

export interface KeyView {
  id: string;
  prefix: string;
  user_id: string;
  description: string | null;
  scope: 'full' | 'read';
  expires_at: string;
  is_active: boolean;
  last_used_at: string | null;
  created_at: string;
}

export const scopeWords = {
  full: { label: 'Full access', meaning: 'Everything you may do in the account.' },
  read: { label: 'Read only', meaning: 'Can look at verifications, cannot change anything.' },
} as const;

export interface KeyForm {
  description?: string;
  scope?: string;
  expires_in_days?: string;
}

export function renderKeysPage(
  ctx: AccountPageContext & { keys: KeyView[]; owners: Map<string, string>; isAdmin: boolean; viewerId: string; now: Date; form?: KeyForm; error?: string; notice?: string },
): string {
  const { keys, form = {} } = ctx;
  const state = (k: KeyView) => (k.is_active ? 'Active' : new Date(k.expires_at) <= ctx.now ? 'Expired' : 'Revoked');
  const rows = keys.map(
    (k) => html`<li>
<div class="key-main"><span class="name">${k.description || 'No description'}</span>
<p class="meta"><span class="pill${k.is_active ? ' level-verified' : ''}">${state(k)}</span> ${scopeWords[k.scope].label} · <code class="hash">pv_${k.prefix}_…</code></p>
<p class="meta">Created ${day(k.created_at)} · ${k.is_active ? 'expires' : 'expiry'} ${day(k.expires_at)} · ${k.last_used_at ? html`last used ${minute(k.last_used_at)}` : 'never used'}${ctx.isAdmin ? html` · by ${k.user_id === ctx.viewerId ? 'you' : (ctx.owners.get(k.user_id) ?? 'a removed user')}` : html``}</p></div>
${k.is_active ? html`<a class="button-link danger" href="${ctx.appPath}/account/keys/${k.id}/revoke" aria-label="Revoke the key ${k.description || `pv_${k.prefix}`}">Revoke</a>` : html``}
</li>`,
  );
  const scope = form.scope ?? 'full';
  return accountPage({
    ...ctx,
    title: 'API keys',
    section: '/account/keys',
    body: html`<h1>API keys</h1>
<p class="subtitle">Keys let programs use the service’s API as you. ${ctx.isAdmin ? 'As an admin you see every key of the account.' : 'You see the keys you created.'}</p>
${noticeOf(ctx.notice)}
<section class="card" aria-labelledby="new-key-title">
<h2 id="new-key-title">Create a key</h2>
${alertOf(ctx.error)}
<form method="post" action="${ctx.appPath}/account/keys">
${csrfField(ctx.viewer)}
<label for="description">Description</label>
<input id="description" name="description" maxlength="200" value="${form.description ?? ''}" placeholder="e.g. Picture desk uploader" aria-describedby="description-help">
<p class="help" id="description-help">So you know later what uses it.</p>
<fieldset><legend>Access</legend>
${(['full', 'read'] as const).map((s) => html`<label class="choice"><input type="radio" name="scope" value="${s}"${scope === s ? html` checked` : html``}> <span><strong>${scopeWords[s].label}</strong> ${scopeWords[s].meaning}</span></label>`)}
</fieldset>
<label for="expires_in_days">Expires after (days)</label>
<input id="expires_in_days" name="expires_in_days" type="number" inputmode="numeric" min="1" max="3650" required value="${form.expires_in_days ?? '365'}" aria-describedby="expiry-help">
<p class="help" id="expiry-help">From 1 day to 3650 days (ten years).</p>
<button class="primary" type="submit">Create the key</button>
</form>
</section>
<section class="card" aria-labelledby="keys-title">
<h2 id="keys-title">${keys.length === 0 ? 'No keys yet' : `${keys.length} ${keys.length === 1 ? 'key' : 'keys'}`}</h2>
${keys.length ? html`<ul class="rows keys">${rows}</ul>` : html`<p class="muted">Create one above when a program needs to use the API.</p>`}
</section>`,
  });
}

/** The answer to "create": the raw key, this once. The copy button needs the page's script; the field is selectable without it. */
export function renderKeyCreatedPage(ctx: AccountPageContext & { key: KeyView & { raw_key: string } }): string {
  const { key } = ctx;
  return accountPage({
    ...ctx,
    title: 'Your new API key',
    section: '/account/keys',
    body: html`<h1>Your new API key</h1>
<section class="card" aria-labelledby="copy-title">
<h2 id="copy-title">Copy the key now: it is shown only this once</h2>
<p>Keep it secret, like a password. If it is lost, create a new key and revoke this one.</p>
<label id="raw-key-label" for="raw-key">${key.description || 'API key'} (${scopeWords[key.scope].label.toLowerCase()}, expires ${day(key.expires_at)})</label>
<div class="keybox"><textarea id="raw-key" readonly rows="2" spellcheck="false" autocomplete="off">${key.raw_key}</textarea>${copyButton({ button: 'copy-key', field: 'raw-key', status: 'copy-status' }, 'Copy', 'Copied. Paste it where your program keeps its secrets.')}</div>
<p id="copy-status" class="help" aria-live="polite"></p>
<p>Programs send it in the <code>X-API-Key</code> header.</p>
<p><a href="${ctx.appPath}/account/keys">Back to your keys</a></p>
</section>`,
    script: copyButtonScript(ctx.nonce),
  });
}

export function renderRevokeKeyPage(ctx: AccountPageContext & { key: KeyView }): string {
  const { key } = ctx;
  return accountPage({
    ...ctx,
    title: 'Revoke an API key',
    section: '/account/keys',
    body: html`<h1>Revoke this key?</h1>
<section class="card" aria-labelledby="revoke-title">
<h2 id="revoke-title">${key.description || 'No description'}</h2>
<dl class="facts"><dt>Key</dt><dd><code class="hash">pv_${key.prefix}_…</code></dd><dt>Access</dt><dd>${scopeWords[key.scope].label}</dd><dt>Created</dt><dd>${day(key.created_at)}</dd><dt>Last used</dt><dd>${key.last_used_at ? minute(key.last_used_at) : 'Never'}</dd></dl>
<p>Programs using this key stop working at once. This cannot be undone.</p>
<form method="post" action="${ctx.appPath}/account/keys/${key.id}/revoke" class="actions">
${csrfField(ctx.viewer)}
<button class="danger" type="submit">Revoke the key</button>
<a class="button-link" href="${ctx.appPath}/account/keys">Keep it</a>
</form>
</section>`,
  });
}

// ---------------------------------------------------------------- Members

export interface MemberView {
  id: string;
  email: string;
  name: string;
  role: 'admin' | 'member';
  status: 'active' | 'invited';
  created_at: string;
}

const roleWords = {
  admin: { label: 'Admin', meaning: 'Also manages members, every API key and the plan.' },
  member: { label: 'Member', meaning: 'Uploads, reviews, tags, comments, shares; manages their own API keys.' },
} as const;

export interface MemberForm {
  name?: string;
  email?: string;
  role?: string;
}

export function renderMembersPage(
  ctx: AccountPageContext & { members: MemberView[]; isAdmin: boolean; viewerId: string; form?: MemberForm; error?: string; notice?: string },
): string {
  const { members, isAdmin, form = {} } = ctx;
  const rows = members.map(
    (m) => html`<li>
<div class="member-main"><span class="name">${m.name}${m.id === ctx.viewerId ? ' (you)' : ''}</span>
<p class="meta">${m.email}</p>
<p class="meta"><span class="pill${m.role === 'admin' ? ' level-provenance' : ''}">${roleWords[m.role].label}</span> ${m.status === 'invited' ? 'Invited, has not chosen a password yet' : `Since ${day(m.created_at)}`}</p></div>
${isAdmin
  ? html`<div class="member-actions">
<form method="post" action="${ctx.appPath}/account/members/${m.id}/role" class="inline">
${csrfField(ctx.viewer)}
<label class="visually-hidden" for="role-${m.id}">Role of ${m.name}</label>
<select id="role-${m.id}" name="role">${(['member', 'admin'] as const).map((r) => html`<option value="${r}"${m.role === r ? html` selected` : html``}>${roleWords[r].label}</option>`)}</select>
<button type="submit" aria-label="Change role of ${m.name}">Change role</button>
</form>
<a class="button-link danger" href="${ctx.appPath}/account/members/${m.id}/remove" aria-label="Remove ${m.name}">Remove</a>
</div>`
  : html``}
</li>`,
  );
  const role = form.role ?? 'member';
  return accountPage({
    ...ctx,
    title: 'Members',
    section: '/account/members',
    body: html`<h1>Members</h1>
<p class="subtitle">The people who use this account.${isAdmin ? '' : ' Only an admin of the account can invite, change roles or remove members.'}</p>
${noticeOf(ctx.notice)}
${isAdmin
  ? html`<section class="card" aria-labelledby="invite-title">
<h2 id="invite-title">Invite someone</h2>
${alertOf(ctx.error)}
<p class="help">They get an e-mail with a link to choose their password (valid for 7 days), then sign in here.</p>
<form method="post" action="${ctx.appPath}/account/members">
${csrfField(ctx.viewer)}
<label for="name">Name</label>
<input id="name" name="name" required maxlength="120" autocomplete="off" value="${form.name ?? ''}">
<label for="email">E-mail address</label>
<input id="email" name="email" type="email" required maxlength="254" autocomplete="off" value="${form.email ?? ''}">
<fieldset><legend>Role</legend>
${(['member', 'admin'] as const).map((r) => html`<label class="choice"><input type="radio" name="role" value="${r}"${role === r ? html` checked` : html``}> <span><strong>${roleWords[r].label}</strong> ${roleWords[r].meaning}</span></label>`)}
</fieldset>
<button class="primary" type="submit">Send the invitation</button>
</form>
</section>`
  : alertOf(ctx.error)}
<section class="card" aria-labelledby="members-title">
<h2 id="members-title">${members.length} ${members.length === 1 ? 'person' : 'people'}</h2>
<ul class="rows members">${rows}</ul>
</section>`,
  });
}

export function renderRemoveMemberPage(ctx: AccountPageContext & { member: MemberView; viewerId: string }): string {
  const { member } = ctx;
  const self = member.id === ctx.viewerId;
  return accountPage({
    ...ctx,
    title: 'Remove a member',
    section: '/account/members',
    body: html`<h1>Remove ${self ? 'yourself' : member.name}?</h1>
<section class="card" aria-labelledby="remove-title">
<h2 id="remove-title">${member.name} · ${member.email}</h2>
<p>${self ? 'You are' : 'They are'} signed out at once, ${self ? 'your' : 'their'} API keys stop working, and ${self ? 'you' : 'they'} can no longer sign in. ${self ? 'Your' : 'Their'} verifications and comments stay with the account.</p>
<form method="post" action="${ctx.appPath}/account/members/${member.id}/remove" class="actions">
${csrfField(ctx.viewer)}
<button class="danger" type="submit">Remove ${self ? 'me' : member.name}</button>
<a class="button-link" href="${ctx.appPath}/account/members">Keep ${self ? 'me' : 'them'}</a>
</form>
</section>`,
  });
}

// ---------------------------------------------------------------- Usage and plan

export interface AccountSettingsView {
  plan: string;
  billing_country: string;
  monthly_budget_cap_eur: number | null;
}

export interface PlanChoice {
  plan: string;
  price: number | null;
  included: number | null;
}

export const planNames: Record<string, string> = { free: 'Free', basic: 'Basic', professional: 'Professional', enterprise: 'Enterprise' };

export interface SettingsForm {
  plan?: string;
  billing_country?: string;
  monthly_budget_cap_eur?: string;
}

const money = (amount: number, currency: string) => `${amount.toFixed(2)} ${currency}`;

export function renderUsagePage(
  ctx: AccountPageContext & { usage: MonthlyUsage; settings: AccountSettingsView; plans: PlanChoice[]; isAdmin: boolean; form?: SettingsForm; error?: string; notice?: string },
): string {
  const { usage: u, settings, isAdmin } = ctx;
  const c = u.currency;
  const exports = u.psd_exports;
  const free = u.plan === 'free';
  const capWords =
    free ? 'The Free plan has no overage: uploads beyond the included ones wait for next month.'
    : u.monthly_budget_cap === null ? 'No budget cap is set, so there is no overage: uploads beyond the included ones are refused until next month.'
    : `${money(u.budget_used, c)} of ${money(u.monthly_budget_cap, c)} used; ${money(u.budget_remaining, c)} left for more overage this month.`;
  const form = ctx.form ?? {
    plan: settings.plan,
    billing_country: settings.billing_country,
    monthly_budget_cap_eur: settings.monthly_budget_cap_eur === null ? '' : String(settings.monthly_budget_cap_eur),
  };
  const planLine = (p: PlanChoice) =>
    `${planNames[p.plan] ?? p.plan}: ${p.price === null ? 'by contract' : p.price === 0 ? 'free' : `${p.price.toFixed(2)} ${c} a month`}, ${p.included === null ? 'verifications by contract' : `${p.included} verifications with camera RAW included`}`;
  return accountPage({
    ...ctx,
    title: 'Usage and plan',
    section: '/account/usage',
    body: html`<h1>Usage and plan</h1>
<p class="subtitle">${planNames[u.plan] ?? u.plan} plan · this month, ${u.month} (UTC)</p>
${noticeOf(ctx.notice)}
<div class="usage-grid">
<section class="card" aria-labelledby="verifications-title">
<h2 id="verifications-title">Verifications with camera RAW</h2>
${u.included === null
  ? html`<p><strong>${u.included_used}</strong> this month (the number included is set by your contract).</p>`
  : html`<p><strong>${u.included_used}</strong> of ${u.included} included used, ${u.included_remaining} left.</p>
<meter min="0" max="${u.included}" value="${u.included_used}" aria-label="Included verifications used">${u.included_used} of ${u.included}</meter>`}
<p>Beyond the included ones (overage): <strong>${u.overage_count}</strong> × ${money(u.overage_price, c)} = ${money(u.overage_amount, c)}.</p>
<p class="help">Images verified alone and verifications a camera maker claimed are free.</p>
</section>
<section class="card" aria-labelledby="psd-title">
<h2 id="psd-title">Layered PSD exports</h2>
${exports.entitled
  ? html`${exports.included === null
      ? html`<p><strong>${exports.included_used}</strong> this month (the number included is set by your contract).</p>`
      : html`<p><strong>${exports.included_used}</strong> of ${exports.included} included used, ${exports.included_remaining} left.</p>
<meter min="0" max="${exports.included}" value="${exports.included_used}" aria-label="Included PSD exports used">${exports.included_used} of ${exports.included}</meter>`}
<p>In progress: ${exports.in_progress} (charged only when they complete). Overage: <strong>${exports.overage_count}</strong> × ${money(exports.overage_price, c)} = ${money(exports.overage_amount, c)}.</p>`
  : html`<p>Not part of the ${planNames[u.plan] ?? u.plan} plan: layered PSD exports come with Professional and Enterprise.</p>`}
</section>
<section class="card" aria-labelledby="budget-title">
<h2 id="budget-title">Budget cap</h2>
<p>${capWords}</p>
${!free && u.monthly_budget_cap !== null ? html`<meter min="0" max="${u.monthly_budget_cap}" value="${u.budget_used}" aria-label="Budget used">${money(u.budget_used, c)}</meter>` : html``}
<p class="help">The cap covers the overage of verifications and PSD exports together.</p>
</section>
</div>
<section class="card" aria-labelledby="settings-title">
<h2 id="settings-title">Plan settings</h2>
${isAdmin
  ? html`${alertOf(ctx.error)}
<form method="post" action="${ctx.appPath}/account/settings">
${csrfField(ctx.viewer)}
${settings.plan === 'enterprise'
  ? html`<p>Plan: Enterprise, set by your contract. Contact us to change it; the budget cap and billing country stay yours to change.</p>`
  : html`<fieldset><legend>Plan</legend>
${ctx.plans.map((p) => html`<label class="choice"><input type="radio" name="plan" value="${p.plan}"${form.plan === p.plan ? html` checked` : html``}> <span>${planLine(p)}</span></label>`)}
<p class="help">A change applies at once, to this month too. Enterprise terms are set by contract.</p>
</fieldset>`}
<label for="monthly_budget_cap_eur">Monthly budget cap for overage, in ${c}</label>
<input id="monthly_budget_cap_eur" name="monthly_budget_cap_eur" inputmode="decimal" maxlength="12" value="${form.monthly_budget_cap_eur ?? ''}" aria-describedby="cap-help">
<p class="help" id="cap-help">The most the account may spend beyond its plan each month, e.g. 50 or 12.50. Empty: no overage.</p>
<label for="billing_country">Billing country</label>
<input id="billing_country" name="billing_country" required maxlength="2" autocomplete="country" value="${form.billing_country ?? ''}" aria-describedby="country-help">
<p class="help" id="country-help">Two letters, e.g. DE. Billing is in EUR in the eurozone, in USD elsewhere (the same numbers).</p>
<button class="primary" type="submit">Save the settings</button>
</form>`
  : html`${alertOf(ctx.error)}<dl class="facts"><dt>Plan</dt><dd>${planNames[settings.plan] ?? settings.plan}</dd><dt>Budget cap</dt><dd>${settings.monthly_budget_cap_eur === null ? 'None (no overage)' : money(settings.monthly_budget_cap_eur, c)}</dd><dt>Billing country</dt><dd>${settings.billing_country}</dd></dl>
<p class="muted">Only an admin of the account can change these.</p>`}
</section>`,
  });
}
