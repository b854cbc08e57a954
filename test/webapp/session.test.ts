import { describe, expect, it } from 'vitest';
import { databaseTargets } from '../support/databases.js';
import { addMember } from '../support/members.js';
import { registerAccount } from '../support/service.js';
import { serviceSuite } from '../support/suite.js';
import { appRequest, cookieFrom, csrfIn, signIn } from '../support/webapp.js';

/** The web app's sign-in, session and CSRF design (docs/webapp.md), over HTTP. */
for (const target of databaseTargets) {
  describe(`web app sessions on ${target.name}`, () => {
    const { t, call } = serviceSuite(target, { LOGIN_RATE_LIMIT_PER_15_MIN: '5' });

    it('signs in with the account user’s password: a strict HttpOnly cookie for /app only, the account and user in the header; signs out', async () => {
      const a = await registerAccount(call);
      expect((await appRequest(t.url, 'GET', '/app/verifications')).location).toBe('/app/login');
      const { cookie, csrf, response } = await signIn(t.url, a.email, a.password);
      expect(response.location).toBe('/app/verifications');
      const flags = response.setCookie.find((c) => c.startsWith('pv_app_session='))!.split('; ').slice(1);
      expect(flags).toEqual(expect.arrayContaining(['Path=/app', 'HttpOnly', 'SameSite=Strict']));
      // The test service's public base URL is http: no Secure flag (the https suite below has it).
      expect(flags).not.toContain('Secure');
      const list = await appRequest(t.url, 'GET', '/app/verifications', { cookie });
      expect(list.status).toBe(200);
      // Hardening: no script, forms to this origin only, never framed, cached or indexed; the referrer
      // stays on the site (a browser under no-referrer sends Origin: null, which the CSRF check refuses).
      expect(list.headers['content-security-policy']).toMatch(/^default-src 'none'; img-src 'self' data:; style-src 'nonce-[^']+'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'$/);
      expect(list.headers).toMatchObject({ 'referrer-policy': 'same-origin', 'x-robots-tag': 'noindex, nofollow', 'cache-control': 'no-store', 'x-content-type-options': 'nosniff' });
      expect(list.text).toContain(a.account.name);
      expect(list.text).toContain(a.user.name);
      const out = await appRequest(t.url, 'POST', '/app/logout', { cookie, form: { csrf_token: csrf } });
      expect(out.status).toBe(303);
      expect(out.location).toBe('/app/login?notice=signed-out');
      expect(out.setCookie[0]).toMatch(/^pv_app_session=; Path=\/app; Max-Age=0; HttpOnly; SameSite=Strict/);
      expect((await appRequest(t.url, 'GET', out.location!)).text).toContain('<p class="notice" role="status">You are signed out.</p>');
    });

    it('a wrong password shows the form again with 401 and no session', async () => {
      const a = await registerAccount(call);
      const page = await appRequest(t.url, 'GET', '/app/login');
      const loginCookie = cookieFrom(page, 'pv_app_login')!;
      const wrong = await appRequest(t.url, 'POST', '/app/login', { cookie: loginCookie, form: { csrf_token: csrfIn(page.text), email: a.email, password: 'not the password' } });
      expect(wrong.status).toBe(401);
      expect(wrong.text).toContain('Wrong e-mail address or password.');
      expect(wrong.text).toContain('role="alert"');
      expect(cookieFrom(wrong, 'pv_app_session')).toBeUndefined();
    });

    it('shares the API’s failed-login limit: past it, even the right password answers 429, here and on the API', async () => {
      const a = await registerAccount(call);
      const page = await appRequest(t.url, 'GET', '/app/login');
      const loginCookie = cookieFrom(page, 'pv_app_login')!;
      const attempt = (password: string) => appRequest(t.url, 'POST', '/app/login', { cookie: loginCookie, form: { csrf_token: csrfIn(page.text), email: a.email, password } });
      for (let i = 0; i < 5; i++) expect((await attempt(`wrong ${i}`)).status).toBe(401);
      const limited = await attempt(a.password);
      expect(limited.status).toBe(429);
      expect(cookieFrom(limited, 'pv_app_session')).toBeUndefined();
      expect((await call('POST', '/v1/accounts/login', { json: { email: a.email, password: a.password } })).status).toBe(429);
    });

    it('refuses a form without its token, with another session’s token, or from another site', async () => {
      const a = await registerAccount(call);
      const mine = await signIn(t.url, a.email, a.password);
      const other = await signIn(t.url, a.email, a.password);
      expect(other.csrf).not.toBe(mine.csrf);
      const logout = (form: Record<string, string>, headers: Record<string, string> = {}) => appRequest(t.url, 'POST', '/app/logout', { cookie: mine.cookie, form, headers });
      for (const refused of [
        await logout({}),
        await logout({ csrf_token: other.csrf }),
        await logout({ csrf_token: mine.csrf }, { origin: 'https://evil.example' }),
        await logout({ csrf_token: mine.csrf }, { origin: 'null' }),
        await logout({ csrf_token: mine.csrf }, { 'sec-fetch-site': 'cross-site' }),
      ]) {
        expect(refused.status).toBe(403);
        expect(refused.text).toContain('This form was not accepted');
        expect(refused.setCookie).toEqual([]);
      }
      // Still signed in after every refusal; the right token from this site signs out.
      expect((await appRequest(t.url, 'GET', '/app/verifications', { cookie: mine.cookie })).status).toBe(200);
      expect((await logout({ csrf_token: mine.csrf }, { origin: t.url, 'sec-fetch-site': 'same-origin' })).status).toBe(303);
      // The sign-in form: its token is bound to its own cookie.
      const page = await appRequest(t.url, 'GET', '/app/login');
      const otherPage = await appRequest(t.url, 'GET', '/app/login');
      const loginCookie = cookieFrom(page, 'pv_app_login')!;
      const login = (form: Record<string, string>, headers: Record<string, string> = {}) => appRequest(t.url, 'POST', '/app/login', { cookie: loginCookie, form: { email: a.email, password: a.password, ...form }, headers });
      expect((await login({})).status).toBe(403);
      expect((await login({ csrf_token: csrfIn(otherPage.text) })).status).toBe(403);
      expect((await login({ csrf_token: csrfIn(page.text) }, { origin: 'https://evil.example' })).status).toBe(403);
      expect((await login({ csrf_token: csrfIn(page.text) })).status).toBe(303);
    });

    it('ends a member’s session at once when they are removed, and another’s when they change the password', async () => {
      const a = await registerAccount(call);
      const removed = await addMember(call, a, 'member', 'Rita Removed');
      const changer = await addMember(call, a, 'member', 'Chad Changer');
      const removedSession = await signIn(t.url, removed.email, removed.password);
      const changerSession = await signIn(t.url, changer.email, changer.password);
      expect((await appRequest(t.url, 'GET', '/app/verifications', { cookie: removedSession.cookie })).status).toBe(200);
      expect((await call('DELETE', `/v1/accounts/${a.account.id}/users/${removed.user.id}`, { token: a.token })).status).toBe(204);
      const afterRemoval = await appRequest(t.url, 'GET', '/app/verifications', { cookie: removedSession.cookie });
      expect([afterRemoval.status, afterRemoval.location]).toEqual([303, '/app/login']);

      expect((await appRequest(t.url, 'GET', '/app/verifications', { cookie: changerSession.cookie })).status).toBe(200);
      const changed = await call('PUT', '/v1/accounts/me/password', { token: changer.token, json: { current_password: changer.password, new_password: 'a brand new password' } });
      expect(changed.status).toBe(200);
      const afterChange = await appRequest(t.url, 'GET', '/app/verifications', { cookie: changerSession.cookie });
      expect([afterChange.status, afterChange.location]).toEqual([303, '/app/login']);
      // The new password signs in again.
      expect((await signIn(t.url, changer.email, 'a brand new password')).response.status).toBe(303);
    });
  });
}

describe('web app session cookie behind https', () => {
  const { t, call } = serviceSuite(databaseTargets[0]!, { PUBLIC_BASE_URL: 'https://photos.example/verify' });

  it('is Secure, and its path is the app under the public base path', async () => {
    const a = await registerAccount(call);
    const page = await appRequest(t.url, 'GET', '/app/login');
    expect(page.setCookie[0]).toMatch(/; Path=\/verify\/app; Max-Age=3600; HttpOnly; SameSite=Strict; Secure$/);
    const loginCookie = cookieFrom(page, 'pv_app_login')!;
    const response = await appRequest(t.url, 'POST', '/app/login', { cookie: loginCookie, form: { csrf_token: csrfIn(page.text), email: a.email, password: a.password } });
    expect(response.status).toBe(303);
    expect(response.location).toBe('/verify/app/verifications');
    expect(response.setCookie[0]).toMatch(/^pv_app_session=[A-Za-z0-9_-]{22}\.[^;]+; Path=\/verify\/app; Max-Age=\d+; HttpOnly; SameSite=Strict; Secure$/);
  });
});
