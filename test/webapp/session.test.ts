import crypto from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { endSessionsCommand } from '../../src/features/accounts/end-sessions-command.js';
import { SkewedClock } from '../support/clock.js';
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

    const opens = async (cookie: string) => {
      const answer = await appRequest(t.url, 'GET', '/app/verifications', { cookie });
      return answer.status === 200 ? 'opens' : `${answer.status} ${answer.location}`;
    };
    const SIGN_IN = '303 /app/login';

    it('ends the session on the server at sign-out: the cookie saved before opens nothing, the user’s other sessions stay', async () => {
      const a = await registerAccount(call);
      const here = await signIn(t.url, a.email, a.password);
      const elsewhere = await signIn(t.url, a.email, a.password);
      const saved = here.cookie;
      expect(await opens(saved)).toBe('opens');
      expect((await appRequest(t.url, 'POST', '/app/logout', { cookie: here.cookie, form: { csrf_token: here.csrf } })).status).toBe(303);
      expect(await opens(saved)).toBe(SIGN_IN);
      // Its forms too: a sign-out form replayed with the saved cookie and token is sent to sign in.
      expect((await appRequest(t.url, 'POST', '/app/logout', { cookie: saved, form: { csrf_token: here.csrf } })).location).toBe('/app/login');
      expect(await opens(elsewhere.cookie)).toBe('opens');
    });

    it('opens only sessions it started: a made-up secret, or a session id beside the user’s own access token, is sent to sign in', async () => {
      const a = await registerAccount(call);
      const { cookie } = await signIn(t.url, a.email, a.password);
      const secret = /pv_app_session=([^;]+)/.exec(cookie)![1]!;
      const login = cookie.split('; ')[0]!;
      for (const forged of [
        `AAAAAAAAAAAAAAAAAAAAAA.${a.token}`,
        `${crypto.randomBytes(16).toString('base64url')}.${a.token}`,
        crypto.randomBytes(32).toString('base64url'),
        `${secret.slice(0, -1)}${secret.endsWith('A') ? 'B' : 'A'}`,
        `${secret}.${a.token}`,
      ]) {
        expect(await opens(`${login}; pv_app_session=${forged}`), forged).toBe(SIGN_IN);
      }
      expect(await opens(cookie)).toBe('opens');
    });

    it('is no API credential: the cookie’s value, or any part of it, as a bearer token is 401 on the REST API and on /mcp', async () => {
      const a = await registerAccount(call);
      const { cookie } = await signIn(t.url, a.email, a.password);
      const value = /pv_app_session=([^;]+)/.exec(cookie)![1]!;
      for (const token of new Set([value, ...value.split('.')])) {
        const me = await call('GET', '/v1/accounts/me', { token });
        expect(me.status, token).toBe(401);
        const list = await call('GET', '/v1/verifications', { token });
        expect(list.status, token).toBe(401);
        const init = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } };
        const mcp = await fetch(`${t.url}/mcp`, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${token}` }, body: JSON.stringify(init) });
        expect(mcp.status, token).toBe(401);
        await mcp.body?.cancel();
      }
      // Nor does the API's cookie-less door take it as a cookie: a REST call with it is unauthenticated.
      const withCookie = await fetch(`${t.url}/v1/accounts/me`, { headers: { cookie } });
      expect(withCookie.status).toBe(401);
    });

    it('a password change ends every session of that user, in every browser; another user’s stay', async () => {
      const a = await registerAccount(call);
      const changer = await addMember(call, a, 'member', 'Pia Twobrowsers');
      const laptop = await signIn(t.url, changer.email, changer.password);
      const phone = await signIn(t.url, changer.email, changer.password);
      const colleague = await signIn(t.url, a.email, a.password);
      expect(await opens(laptop.cookie)).toBe('opens');
      expect(await opens(phone.cookie)).toBe('opens');
      const changed = await call('PUT', '/v1/accounts/me/password', { token: changer.token, json: { current_password: changer.password, new_password: 'another brand new password' } });
      expect(changed.status).toBe(200);
      expect(await opens(laptop.cookie)).toBe(SIGN_IN);
      expect(await opens(phone.cookie)).toBe(SIGN_IN);
      expect(await opens(colleague.cookie)).toBe('opens');
    });

    it('removing a user ends all their sessions; an operator’s accounts:end-sessions ends a user’s sessions and nothing else', async () => {
      const a = await registerAccount(call);
      const leaver = await addMember(call, a, 'member', 'Lea Leaver');
      const [one, two] = [await signIn(t.url, leaver.email, leaver.password), await signIn(t.url, leaver.email, leaver.password)];
      expect((await call('DELETE', `/v1/accounts/${a.account.id}/users/${leaver.user.id}`, { token: a.token })).status).toBe(204);
      expect(await opens(one.cookie)).toBe(SIGN_IN);
      expect(await opens(two.cookie)).toBe(SIGN_IN);

      const stayer = await addMember(call, a, 'member', 'Stan Stayer');
      const stolen = await signIn(t.url, stayer.email, stayer.password);
      const owners = await signIn(t.url, a.email, a.password);
      const { deps } = t.service;
      expect(() => endSessionsCommand.parse(['--account', a.account.id])).toThrow(/--user/);
      const printed = await endSessionsCommand.parse(['--account', a.account.id, '--user', stayer.user.id])({ config: deps.config, store: deps.store, log: deps.log });
      expect(printed).toContain(stayer.user.id);
      // The command appends and returns; the service's projector ends the sessions soon after.
      for (const deadline = Date.now() + 60_000; (await opens(stolen.cookie)) !== SIGN_IN; await new Promise((r) => setTimeout(r, 100))) {
        if (Date.now() > deadline) throw new Error('the operator’s end of the sessions was not projected');
      }
      // The user keeps their password (signs in again) and the account its other sessions.
      expect(await opens(owners.cookie)).toBe('opens');
      expect(await opens((await signIn(t.url, stayer.email, stayer.password)).cookie)).toBe('opens');
      // A user of another account is USER_NOT_FOUND, not ended.
      const other = await registerAccount(call);
      await expect(endSessionsCommand.parse(['--account', a.account.id, '--user', other.user.id])({ config: deps.config, store: deps.store, log: deps.log })).rejects.toMatchObject({ code: 'USER_NOT_FOUND' });
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
    // An opaque secret (32 random bytes) lasting the absolute lifetime (APP_SESSION_ABSOLUTE_SECONDS, 12 h).
    expect(response.setCookie[0]).toMatch(/^pv_app_session=[A-Za-z0-9_-]{43}; Path=\/verify\/app; Max-Age=43200; HttpOnly; SameSite=Strict; Secure$/);
  });
});

describe('web app session lifetimes, on the service’s clock', () => {
  const clock = new SkewedClock();
  const { t, call } = serviceSuite(databaseTargets[0]!, { APP_SESSION_IDLE_SECONDS: '1800', APP_SESSION_ABSOLUTE_SECONDS: '7200' }, { clock });
  const minutes = (n: number) => clock.advance(n * 60_000);
  const opens = async (cookie: string) => (await appRequest(t.url, 'GET', '/app/verifications', { cookie })).status === 200;

  it('ends a session left unused for APP_SESSION_IDLE_SECONDS; each page (recorded at most once a minute) starts the idle time again', async () => {
    const a = await registerAccount(call);
    const { cookie } = await signIn(t.url, a.email, a.password);
    const before = await t.eventCount();
    minutes(29);
    expect(await opens(cookie)).toBe(true);
    // Pages within the minute after a recorded use record nothing.
    expect(await opens(cookie)).toBe(true);
    expect(await opens(cookie)).toBe(true);
    expect(await t.eventCount()).toBe(before + 1);
    minutes(29);
    expect(await opens(cookie)).toBe(true);
    minutes(31);
    expect(await opens(cookie)).toBe(false);
    // Ended for good: a later page does not bring it back.
    expect(await opens(cookie)).toBe(false);
  });

  it('ends a session APP_SESSION_ABSOLUTE_SECONDS after sign-in, however busy', async () => {
    const a = await registerAccount(call);
    const { cookie } = await signIn(t.url, a.email, a.password);
    for (let elapsed = 0; elapsed < 115; elapsed += 23) {
      minutes(23);
      expect(await opens(cookie), `after ${elapsed + 23} minutes`).toBe(true);
    }
    minutes(6);
    expect(await opens(cookie)).toBe(false);
    // Signing in again starts a new one.
    expect(await opens((await signIn(t.url, a.email, a.password)).cookie)).toBe(true);
  });
});
