import { describe, expect, it } from 'vitest';
import { databaseTargets } from '../support/databases.js';
import { recordSecretsIn } from '../support/log-capture.js';
import { addMember } from '../support/members.js';
import { outbox, to } from '../support/outbox.js';
import { registerAccount } from '../support/service.js';
import { serviceSuite } from '../support/suite.js';
import { appRequest, signIn, type AppResponse } from '../support/webapp.js';

/**
 * The web app's account pages (issue 27, must-work 3; docs/webapp.md "Account") over HTTP:
 * API keys, members and roles, usage and plan settings. Every effect is checked through the REST
 * API (the same state), every refusal for its status, its message and that nothing was stored.
 */

/** The raw key on the page that answered "create" (the read-only field's value). */
function rawKeyIn(page: string): string {
  const raw = /<textarea id="raw-key" readonly rows="2" spellcheck="false" autocomplete="off">(pv_[^<]+)<\/textarea>/.exec(page)?.[1];
  if (!raw) throw new Error('the page shows no raw key');
  recordSecretsIn(raw);
  return raw;
}

const alertOf = (page: AppResponse) => /<p class="alert" role="alert">([^<]*)<\/p>/.exec(page.text)?.[1]?.replace(/&#39;/g, "'").replace(/&quot;/g, '"').replace(/&amp;/g, '&');

for (const target of databaseTargets) {
  describe(`web app account pages on ${target.name}`, () => {
    const { t, call } = serviceSuite(target);

    const keysOf = async (token: string) => (await call('GET', '/v1/apikeys/', { token })).body as { id: string; description: string | null; scope: string; is_active: boolean; user_id: string }[];
    const usersOf = async (a: { account: { id: string }; token: string }) =>
      ((await call('GET', `/v1/accounts/${a.account.id}/users`, { token: a.token })).body as { items: { id: string; email: string; name: string; role: string; status: string }[] }).items;

    it('creates a key through the page (shown once, no-store, copy button), uses it on the API, revokes it with a confirmation and sees it refused', async () => {
      const a = await registerAccount(call);
      const s = await signIn(t.url, a.email, a.password);
      const root = await appRequest(t.url, 'GET', '/app/account', { cookie: s.cookie });
      expect([root.status, root.location]).toEqual([303, '/app/account/keys']);
      const empty = await appRequest(t.url, 'GET', '/app/account/keys', { cookie: s.cookie });
      expect(empty.status).toBe(200);
      expect(empty.text).toContain('No keys yet');
      expect(empty.text).toMatch(/<a href="\/app\/account" aria-current="page">Account<\/a>/);

      // The description as the API treats it: trimmed, emoji and accents kept.
      const created = await appRequest(t.url, 'POST', '/app/account/keys', { cookie: s.cookie, form: { csrf_token: s.csrf, description: '  Zoë’s desk 📷  ', scope: 'read', expires_in_days: '30' } });
      expect(created.status).toBe(201);
      expect(created.headers['cache-control']).toBe('no-store');
      expect(created.headers['content-security-policy']).toMatch(/script-src 'nonce-([^']+)'/);
      const nonce = /script-src 'nonce-([^']+)'/.exec(created.headers['content-security-policy']!)![1]!;
      expect(created.text).toContain(`<script nonce="${nonce}">`);
      expect(created.text).toMatch(/<button type="button" id="copy-key" data-copy-field="raw-key"[^>]* hidden>Copy<\/button>/);
      expect(created.text).toContain('Copy the key now: it is shown only this once');
      const raw = rawKeyIn(created.text);
      expect(raw).toMatch(/^pv_[A-Za-z0-9]{12}_[A-Za-z0-9_-]{43}$/);

      const [key] = await keysOf(a.token);
      expect(key).toMatchObject({ description: 'Zoë’s desk 📷', scope: 'read', is_active: true, user_id: a.user.id });
      // The key works on the API, read-only as chosen.
      expect((await call('GET', '/v1/verifications/', { apiKey: raw })).status).toBe(200);
      expect((await call('GET', '/v1/accounts/me', { apiKey: raw })).body.user.id).toBe(a.user.id);

      // Never again: the list shows the description and the public prefix, not the key.
      const list = await appRequest(t.url, 'GET', '/app/account/keys', { cookie: s.cookie });
      expect(list.text).toContain('Zoë’s desk 📷');
      expect(list.text).toContain(`${raw.slice(0, 15)}_…`);
      expect(list.text).not.toContain(raw);
      expect(list.text).toContain('Read only');
      expect(list.text).toMatch(/last used \d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC · by you/);

      const confirm = await appRequest(t.url, 'GET', `/app/account/keys/${key!.id}/revoke`, { cookie: s.cookie });
      expect(confirm.status).toBe(200);
      expect(confirm.text).toContain('Revoke this key?');
      expect(confirm.text).toContain(`action="/app/account/keys/${key!.id}/revoke"`);
      const revoked = await appRequest(t.url, 'POST', `/app/account/keys/${key!.id}/revoke`, { cookie: s.cookie, form: { csrf_token: s.csrf } });
      expect([revoked.status, revoked.location]).toEqual([303, '/app/account/keys?done=revoked']);
      expect((await call('GET', '/v1/verifications/', { apiKey: raw })).status).toBe(401);
      expect((await keysOf(a.token))[0]!.is_active).toBe(false);
      const after = await appRequest(t.url, 'GET', '/app/account/keys?done=revoked', { cookie: s.cookie });
      expect(after.text).toContain('The key was revoked.');
      expect(after.text).toMatch(/<span class="pill">Revoked<\/span>/);
      expect(after.text).not.toContain(`/app/account/keys/${key!.id}/revoke`);
      // A notice is one of the page's own words: anything else is refused.
      expect((await appRequest(t.url, 'GET', '/app/account/keys?done=<b>hi</b>', { cookie: s.cookie })).status).toBe(422);
    });

    it('refuses a key form the API would refuse (shown again with the message, 422), stores nothing; CSRF and another account’s key refused', async () => {
      const a = await registerAccount(call);
      const other = await registerAccount(call);
      const s = await signIn(t.url, a.email, a.password);
      const post = (form: Record<string, string>, cookie = s.cookie) => appRequest(t.url, 'POST', '/app/account/keys', { cookie, form });
      const cases: [Record<string, string>, RegExp][] = [
        [{ description: 'right\u202Eto left', scope: 'full', expires_in_days: '365' }, /^Description: /],
        [{ description: 'bell\u0007', scope: 'full', expires_in_days: '365' }, /^Description: /],
        [{ description: 'x'.repeat(201), scope: 'full', expires_in_days: '365' }, /^Description: /],
        [{ description: 'ok', scope: 'admin', expires_in_days: '365' }, /^Access: /],
        [{ description: 'ok', scope: 'full', expires_in_days: '0' }, /^Expires after \(days\): /],
        [{ description: 'ok', scope: 'full', expires_in_days: '3651' }, /^Expires after \(days\): /],
        [{ description: 'ok', scope: 'full', expires_in_days: 'soon' }, /^Expires after \(days\): /],
      ];
      for (const [form, message] of cases) {
        const refused = await post({ csrf_token: s.csrf, ...form });
        expect(refused.status).toBe(422);
        expect(alertOf(refused)).toMatch(message);
        expect(refused.text).not.toContain('id="raw-key"');
        // The form keeps what was typed (escaped).
        expect(refused.text).toContain('name="description"');
        // The API refuses the same values the same way.
        const days = Number(form.expires_in_days);
        const api = await call('POST', '/v1/apikeys/', { token: a.token, json: { account_id: a.account.id, description: form.description, scope: form.scope, expires_in_days: Number.isNaN(days) ? form.expires_in_days : days } });
        expect(api.status).toBe(422);
      }
      // CSRF: no token, another session's token, another site.
      const second = await signIn(t.url, a.email, a.password);
      for (const refused of [
        await post({ description: 'no token', scope: 'full', expires_in_days: '1' }),
        await post({ csrf_token: second.csrf, description: 'their token', scope: 'full', expires_in_days: '1' }),
        await appRequest(t.url, 'POST', '/app/account/keys', { cookie: s.cookie, headers: { origin: 'https://evil.example' }, form: { csrf_token: s.csrf, description: 'x', scope: 'full', expires_in_days: '1' } }),
      ]) {
        expect(refused.status).toBe(403);
        expect(refused.text).toContain('This form was not accepted');
      }
      expect(await keysOf(a.token)).toEqual([]);

      // Another account's key: 404 on the confirmation and on the form; the key stays active.
      const foreign = await call('POST', '/v1/apikeys/', { token: other.token, json: { account_id: other.account.id, description: 'theirs' } });
      expect(foreign.status).toBe(201);
      expect((await appRequest(t.url, 'GET', `/app/account/keys/${foreign.body.id}/revoke`, { cookie: s.cookie })).status).toBe(404);
      const foreignRevoke = await appRequest(t.url, 'POST', `/app/account/keys/${foreign.body.id}/revoke`, { cookie: s.cookie, form: { csrf_token: s.csrf } });
      expect(foreignRevoke.status).toBe(404);
      expect(foreignRevoke.text).toContain('API key not found.');
      expect((await keysOf(other.token))[0]!.is_active).toBe(true);
      expect((await appRequest(t.url, 'GET', '/app/account/keys', { cookie: s.cookie })).text).not.toContain('theirs');
      expect((await appRequest(t.url, 'GET', '/app/account/keys/not-a-uuid/revoke', { cookie: s.cookie })).status).toBe(422);
    });

    it('a member manages their own keys only; an admin sees and revokes every key of the account (the API’s rule)', async () => {
      const a = await registerAccount(call);
      const m = await addMember(call, a, 'member', 'Mona Member');
      const adminKey = await call('POST', '/v1/apikeys/', { token: a.token, json: { account_id: a.account.id, description: 'admin key' } });
      const ms = await signIn(t.url, m.email, m.password);
      const made = await appRequest(t.url, 'POST', '/app/account/keys', { cookie: ms.cookie, form: { csrf_token: ms.csrf, description: 'member key', scope: 'full', expires_in_days: '7' } });
      expect(made.status).toBe(201);
      rawKeyIn(made.text);
      const memberPage = await appRequest(t.url, 'GET', '/app/account/keys', { cookie: ms.cookie });
      expect(memberPage.text).toContain('member key');
      expect(memberPage.text).not.toContain('admin key');
      // The admin's key is not the member's to revoke: 404, as DELETE /v1/apikeys/{id} answers them.
      expect((await appRequest(t.url, 'POST', `/app/account/keys/${adminKey.body.id}/revoke`, { cookie: ms.cookie, form: { csrf_token: ms.csrf } })).status).toBe(404);
      expect((await call('DELETE', `/v1/apikeys/${adminKey.body.id}`, { token: m.token })).status).toBe(404);

      const as = await signIn(t.url, a.email, a.password);
      const adminPage = await appRequest(t.url, 'GET', '/app/account/keys', { cookie: as.cookie });
      expect(adminPage.text).toContain('admin key');
      expect(adminPage.text).toContain('member key');
      expect(adminPage.text).toContain('by Mona Member');
      const memberKey = (await keysOf(m.token))[0]!;
      expect((await appRequest(t.url, 'POST', `/app/account/keys/${memberKey.id}/revoke`, { cookie: as.cookie, form: { csrf_token: as.csrf } })).status).toBe(303);
      expect((await keysOf(m.token))[0]!.is_active).toBe(false);
    });

    it('an admin invites a member (the mail in the outbox), who sets a password through the link and signs in; changes the role; removes them and their app session ends', async () => {
      const a = await registerAccount(call);
      const s = await signIn(t.url, a.email, a.password);
      const email = `Ines.${a.account.id}@Org.Example`;
      const invited = await appRequest(t.url, 'POST', '/app/account/members', { cookie: s.cookie, form: { csrf_token: s.csrf, name: ' Inès 👩‍👩‍👧 Invitée ', email, role: 'member' } });
      expect([invited.status, invited.location]).toEqual([303, '/app/account/members?done=invited']);
      // Stored as the API stores it: the name trimmed, the address in lower case, invited.
      const user = (await usersOf(a)).find((u) => u.email === email.toLowerCase())!;
      expect(user).toMatchObject({ name: 'Inès 👩‍👩‍👧 Invitée', role: 'member', status: 'invited' });
      const page = await appRequest(t.url, 'GET', '/app/account/members?done=invited', { cookie: s.cookie });
      expect(page.text).toContain('The invitation is on its way.');
      expect(page.text).toContain('Inès 👩‍👩‍👧 Invitée');
      expect(page.text).toContain('Invited, has not chosen a password yet');

      await t.settled();
      const mail = (await outbox(t.dataDir)).find((m) => to(m) === email.toLowerCase());
      expect(mail?.subject).toBe(`${a.user.name} invited you to ${a.account.name} on PhotoVerify`);
      const link = /(http\S+\/accounts\/set-password#(pvi_[A-Za-z0-9_-]{43}))/.exec(mail!.text ?? '')!;
      // The link opens the set-password page, whose script posts the token from the fragment.
      const setPassword = await fetch(`${t.url}${new URL(link[1]!).pathname}`);
      expect(setPassword.status).toBe(200);
      expect(await setPassword.text()).toContain('data-accept-url="/v1/accounts/invitations/accept"');
      expect((await call('POST', '/v1/accounts/invitations/accept', { json: { token: link[2], password: 'chosen by Ines 123' } })).status).toBe(200);
      const ines = await signIn(t.url, email, 'chosen by Ines 123');
      expect(ines.response.location).toBe('/app/verifications');
      expect((await appRequest(t.url, 'GET', '/app/account/members', { cookie: ines.cookie })).text).toContain('Only an admin of the account can invite');

      // Change the role through the page: the API says admin.
      const role = await appRequest(t.url, 'POST', `/app/account/members/${user.id}/role`, { cookie: s.cookie, form: { csrf_token: s.csrf, role: 'admin' } });
      expect([role.status, role.location]).toEqual([303, '/app/account/members?done=role']);
      expect((await usersOf(a)).find((u) => u.id === user.id)!.role).toBe('admin');
      // The new role shows on their next page: the invitation form is theirs now.
      expect((await appRequest(t.url, 'GET', '/app/account/members', { cookie: ines.cookie })).text).toContain('Send the invitation');

      // Remove, with a confirmation: their open app session ends at once.
      const confirm = await appRequest(t.url, 'GET', `/app/account/members/${user.id}/remove`, { cookie: s.cookie });
      expect(confirm.status).toBe(200);
      expect(confirm.text).toContain('Remove Inès 👩‍👩‍👧 Invitée?');
      expect((await appRequest(t.url, 'GET', '/app/account/keys', { cookie: ines.cookie })).status).toBe(200);
      const removed = await appRequest(t.url, 'POST', `/app/account/members/${user.id}/remove`, { cookie: s.cookie, form: { csrf_token: s.csrf } });
      expect([removed.status, removed.location]).toEqual([303, '/app/account/members?done=removed']);
      expect((await usersOf(a)).some((u) => u.id === user.id)).toBe(false);
      const ended = await appRequest(t.url, 'GET', '/app/account/keys', { cookie: ines.cookie });
      expect([ended.status, ended.location]).toEqual([303, '/app/login']);
      const theirForm = await appRequest(t.url, 'POST', '/app/account/keys', { cookie: ines.cookie, form: { csrf_token: ines.csrf, description: 'after removal', scope: 'full', expires_in_days: '1' } });
      expect([theirForm.status, theirForm.location]).toEqual([303, '/app/login']);
    });

    it('refuses invitations the API refuses, with its status and message, storing nothing; the last admin stays one', async () => {
      const a = await registerAccount(call);
      const taken = await registerAccount(call);
      const s = await signIn(t.url, a.email, a.password);
      const before = (await usersOf(a)).length;
      const outboxBefore = (await outbox(t.dataDir)).length;
      const cases: [Record<string, string>, number, RegExp][] = [
        [{ name: 'Nora', email: 'not an address', role: 'member' }, 422, /^E-mail address: /],
        [{ name: 'Nora', email: 'nora@exa\u202Emple.org', role: 'member' }, 422, /^E-mail address: /],
        [{ name: 'No\u0000ra', email: 'nora@example.org', role: 'member' }, 422, /^Name: /],
        [{ name: 'Nora\u202E', email: 'nora@example.org', role: 'member' }, 422, /^Name: /],
        [{ name: '   ', email: 'nora@example.org', role: 'member' }, 422, /^Name: /],
        [{ name: 'Nora', email: 'nora@example.org', role: 'owner' }, 422, /^Role: /],
        [{ name: 'Nora', email: taken.email.toUpperCase(), role: 'member' }, 409, /^A user with this e-mail address already exists\./],
      ];
      for (const [form, status, message] of cases) {
        const refused = await appRequest(t.url, 'POST', '/app/account/members', { cookie: s.cookie, form: { csrf_token: s.csrf, ...form } });
        expect(refused.status).toBe(status);
        expect(alertOf(refused)).toMatch(message);
        const api = await call('POST', `/v1/accounts/${a.account.id}/users`, { token: a.token, json: form });
        expect(api.status).toBe(status);
      }
      expect((await usersOf(a)).length).toBe(before);
      await t.settled();
      expect((await outbox(t.dataDir)).length).toBe(outboxBefore);

      const lastAdmin = await appRequest(t.url, 'POST', `/app/account/members/${a.user.id}/role`, { cookie: s.cookie, form: { csrf_token: s.csrf, role: 'member' } });
      expect(lastAdmin.status).toBe(409);
      expect(alertOf(lastAdmin)).toBe('The last admin of an account cannot stop being an admin. Make another user an admin first.');
      const removeSelf = await appRequest(t.url, 'POST', `/app/account/members/${a.user.id}/remove`, { cookie: s.cookie, form: { csrf_token: s.csrf } });
      expect(removeSelf.status).toBe(409);
      expect((await usersOf(a)).find((u) => u.id === a.user.id)!.role).toBe('admin');
      expect((await appRequest(t.url, 'POST', `/app/account/members/${a.user.id}/role`, { cookie: s.cookie, form: { csrf_token: s.csrf, role: 'boss' } })).status).toBe(422);
    });

    it('a member sees the members and settings read-only and is refused every admin form with the API’s error; CSRF; another account’s user is 404', async () => {
      const a = await registerAccount(call);
      const other = await registerAccount(call);
      const m = await addMember(call, a, 'member', 'Mo Member');
      const ms = await signIn(t.url, m.email, m.password);
      const members = await appRequest(t.url, 'GET', '/app/account/members', { cookie: ms.cookie });
      expect(members.status).toBe(200);
      expect(members.text).toContain(a.user.name);
      expect(members.text).not.toContain('action="/app/account/members"');
      expect(members.text).not.toContain('/remove"');
      const usage = await appRequest(t.url, 'GET', '/app/account/usage', { cookie: ms.cookie });
      expect(usage.text).not.toContain('action="/app/account/settings"');
      expect(usage.text).toContain('Only an admin of the account can change these.');

      const refusals: [string, Record<string, string>, string][] = [
        ['/app/account/members', { name: 'Sneaky', email: `sneaky-${a.account.id}@org.example`, role: 'admin' }, 'Only an admin of the account can add users.'],
        [`/app/account/members/${m.user.id}/role`, { role: 'admin' }, 'Only an admin of the account can change roles.'],
        [`/app/account/members/${a.user.id}/remove`, {}, 'Only an admin of the account can remove users.'],
        ['/app/account/settings', { plan: 'professional', billing_country: 'DE', monthly_budget_cap_eur: '1000' }, 'Only an admin of the account can change its plan or budget.'],
      ];
      for (const [action, form, message] of refusals) {
        const refused = await appRequest(t.url, 'POST', action, { cookie: ms.cookie, form: { csrf_token: ms.csrf, ...form } });
        expect(refused.status).toBe(403);
        expect(alertOf(refused)).toBe(message);
      }
      expect((await usersOf(a)).map((u) => [u.id, u.role]).sort()).toEqual([[a.user.id, 'admin'], [m.user.id, 'member']].sort());
      expect((await call('GET', `/v1/accounts/${a.account.id}`, { token: a.token })).body).toMatchObject({ plan: 'free', monthly_budget_cap_eur: null });

      const s = await signIn(t.url, a.email, a.password);
      // CSRF on the admin's forms.
      for (const [action, form] of [[`/app/account/members/${m.user.id}/role`, { role: 'admin' }], [`/app/account/members/${m.user.id}/remove`, {}], ['/app/account/settings', { billing_country: 'US', monthly_budget_cap_eur: '' }]] as const) {
        expect((await appRequest(t.url, 'POST', action, { cookie: s.cookie, form })).status).toBe(403);
        expect((await appRequest(t.url, 'POST', action, { cookie: s.cookie, form: { ...form, csrf_token: ms.csrf } })).status).toBe(403);
      }
      expect((await usersOf(a)).find((u) => u.id === m.user.id)!.role).toBe('member');
      // Another account's user: 404 everywhere, and they stay.
      expect((await appRequest(t.url, 'GET', `/app/account/members/${other.user.id}/remove`, { cookie: s.cookie })).status).toBe(404);
      expect((await appRequest(t.url, 'POST', `/app/account/members/${other.user.id}/role`, { cookie: s.cookie, form: { csrf_token: s.csrf, role: 'member' } })).status).toBe(404);
      const foreign = await appRequest(t.url, 'POST', `/app/account/members/${other.user.id}/remove`, { cookie: s.cookie, form: { csrf_token: s.csrf } });
      expect(foreign.status).toBe(404);
      expect(foreign.text).toContain('No such user in this account.');
      // A user error: the members page again, saying it (issue 37), not the error page.
      expect(foreign.text).toContain('<h1>Members</h1>');
      expect(alertOf(foreign)).toMatch(/^No such user in this account\./);
      expect((await usersOf(other)).map((u) => u.id)).toEqual([other.user.id]);
    });

    it('shows this month’s usage against the plan (the usage use case’s numbers); an admin changes the plan, budget cap and country; refusals change nothing', async () => {
      const a = await registerAccount(call, { plan: 'basic', monthly_budget_cap_eur: 10 });
      const s = await signIn(t.url, a.email, a.password);
      const usage = (await call('GET', `/v1/accounts/${a.account.id}/usage`, { token: a.token })).body;
      const page = await appRequest(t.url, 'GET', '/app/account/usage', { cookie: s.cookie });
      expect(page.status).toBe(200);
      expect(page.text).toContain(`Basic plan · this month, ${usage.month} (UTC)`);
      expect(page.text).toContain(`<strong>${usage.included_used}</strong> of ${usage.included} included used, ${usage.included_remaining} left.`);
      expect(page.text).toContain(`<strong>0</strong> × 0.25 EUR = 0.00 EUR`);
      expect(page.text).toContain('0.00 EUR of 10.00 EUR used; 10.00 EUR left for more overage this month.');
      expect(page.text).toContain('Not part of the Basic plan');
      expect(page.text).toMatch(/<input type="radio" name="plan" value="basic" checked>/);

      const save = (form: Record<string, string>) => appRequest(t.url, 'POST', '/app/account/settings', { cookie: s.cookie, form: { csrf_token: s.csrf, ...form } });
      const saved = await save({ plan: 'professional', monthly_budget_cap_eur: '25.50', billing_country: 'us' });
      expect([saved.status, saved.location]).toEqual([303, '/app/account/usage?done=saved']);
      expect((await call('GET', `/v1/accounts/${a.account.id}`, { token: a.token })).body).toMatchObject({ plan: 'professional', monthly_budget_cap_eur: 25.5, billing_country: 'US', billing_currency: 'USD' });
      const after = await appRequest(t.url, 'GET', '/app/account/usage?done=saved', { cookie: s.cookie });
      expect(after.text).toContain('The settings were saved.');
      expect(after.text).toContain('0.00 USD of 25.50 USD used');
      expect(after.text).toContain(`<strong>0</strong> of 50 included used, 50 left.`);

      for (const [form, message] of [
        [{ plan: 'professional', monthly_budget_cap_eur: 'ten', billing_country: 'US' }, /^Monthly budget cap: enter an amount/],
        [{ plan: 'professional', monthly_budget_cap_eur: '-5', billing_country: 'US' }, /^Monthly budget cap: enter an amount/],
        [{ plan: 'professional', monthly_budget_cap_eur: '2000000', billing_country: 'US' }, /^Monthly budget cap: /],
        [{ plan: 'professional', monthly_budget_cap_eur: '', billing_country: 'USA' }, /^Billing country: /],
        [{ plan: 'enterprise', monthly_budget_cap_eur: '', billing_country: 'US' }, /^Plan: /],
      ] as const) {
        const refused = await save(form);
        expect(refused.status).toBe(422);
        expect(alertOf(refused)).toMatch(message);
      }
      expect((await call('GET', `/v1/accounts/${a.account.id}`, { token: a.token })).body).toMatchObject({ plan: 'professional', monthly_budget_cap_eur: 25.5, billing_country: 'US' });
      // A field the form does not send is left as it is (as PATCH leaves an absent one).
      expect((await save({ billing_country: 'DE' })).status).toBe(303);
      expect((await call('GET', `/v1/accounts/${a.account.id}`, { token: a.token })).body).toMatchObject({ plan: 'professional', monthly_budget_cap_eur: 25.5, billing_country: 'DE' });
      // Empty: no cap, as null on the API.
      expect((await save({ plan: 'professional', monthly_budget_cap_eur: '', billing_country: 'US' })).status).toBe(303);
      expect((await call('GET', `/v1/accounts/${a.account.id}`, { token: a.token })).body.monthly_budget_cap_eur).toBeNull();
      expect((await appRequest(t.url, 'GET', '/app/account/usage', { cookie: s.cookie })).text).toContain('No budget cap is set');
    });

    it('signed out, every account page sends the browser to sign in', async () => {
      for (const p of ['/app/account', '/app/account/keys', '/app/account/members', '/app/account/usage']) {
        const r = await appRequest(t.url, 'GET', p);
        expect([r.status, r.location]).toEqual([303, '/app/login']);
      }
      const post = await appRequest(t.url, 'POST', '/app/account/keys', { form: { description: 'x' } });
      expect([post.status, post.location]).toEqual([303, '/app/login']);
    });
  });
}
