import crypto from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { SkewedClock } from '../support/clock.js';
import { databaseTargets } from '../support/databases.js';
import { outbox, to } from '../support/outbox.js';
import { waitFor } from '../support/poll.js';
import { registerAccount } from '../support/service.js';
import { serviceSuite } from '../support/suite.js';
import { appRequest, cookieFrom, csrfIn, signIn } from '../support/webapp.js';

/**
 * Issue 39 item 1, the front door: `/` leads to sign-in and sign-up; sign-up is the API's
 * registration as a form (its rules, its errors) and signs the new admin in; a forgotten password
 * is reset through a mailed link that works once, for an hour, the latest only, is rate-limited,
 * and ends every session and token of the user.
 */

/** Opens a signed-out page and returns its cookie and form token. */
async function signedOutPage(url: string, path: string) {
  const page = await appRequest(url, 'GET', path);
  expect(page.status, page.text.slice(0, 300)).toBe(200);
  return { cookie: cookieFrom(page, 'pv_app_login')!, csrf: csrfIn(page.text), page };
}

const newAddress = () => `door-${crypto.randomUUID()}@example.eu`;

for (const target of databaseTargets) {
  describe(`the front door on ${target.name}`, () => {
    const { t, call } = serviceSuite(target);

    /** The reset link the outbox holds for `address` (the newest first when there are several). */
    const resetLinks = async (address: string) =>
      (await outbox(t.dataDir))
        .filter((m) => to(m) === address && /Reset your/.test(m.subject ?? ''))
        .map((m) => /(https?:\/\/\S+\/app\/password-reset\/(pvr_\S+))/.exec(m.text ?? '')!)
        .map((match) => ({ url: match[1]!, token: match[2]! }));

    const askReset = async (address: string) => {
      const { cookie, csrf } = await signedOutPage(t.url, '/app/password-reset');
      return appRequest(t.url, 'POST', '/app/password-reset', { cookie, form: { csrf_token: csrf, email: address } });
    };

    it('leads a person from / to sign in and to create an account', async () => {
      const home = await fetch(`${t.url}/`, { headers: { accept: 'text/html' } });
      const text = await home.text();
      expect(text).toMatch(/href="[^"]*\/app\/login">Sign in</);
      expect(text).toMatch(/href="[^"]*\/app\/signup">Create an account</);
      const login = await appRequest(t.url, 'GET', '/app/login');
      expect(login.text).toContain('/app/password-reset">Forgot your password?');
      expect(login.text).toContain('/app/signup">Create an account');
    });

    it('creates an account and its admin from the form, signs them in, and refuses what the API refuses with the form again', async () => {
      const { cookie, csrf } = await signedOutPage(t.url, '/app/signup');
      const email = newAddress();
      const form = { csrf_token: csrf, account_name: 'Harbour Desk', name: 'Ada Editor', email, password: 'a long enough password', plan: 'basic', billing_country: 'fr' };

      // The API's rules: a short password and an unknown plan are named on the form again, nothing stored.
      const before = await t.eventCount();
      const short = await appRequest(t.url, 'POST', '/app/signup', { cookie, form: { ...form, password: 'short' } });
      expect(short.status).toBe(422);
      expect(short.text).toContain('Password: Passwords need at least 10 characters.');
      expect(short.text).toContain(`value="${email}"`);
      const plan = await appRequest(t.url, 'POST', '/app/signup', { cookie, form: { ...form, plan: 'enterprise' } });
      expect(plan.status).toBe(422);
      expect(plan.text).toContain('Plan:');
      const nul = await appRequest(t.url, 'POST', '/app/signup', { cookie, form: { ...form, account_name: 'Harbour\u0000Desk' } });
      expect(nul.status).toBe(422);
      expect(await t.eventCount()).toBe(before);

      const made = await appRequest(t.url, 'POST', '/app/signup', { cookie, form });
      expect(made.status, made.text.slice(0, 300)).toBe(303);
      expect(made.location).toMatch(/\/app\/verifications$/);
      const session = cookieFrom(made, 'pv_app_session')!;
      const list = await appRequest(t.url, 'GET', '/app/verifications', { cookie: `${cookie}; ${session}` });
      expect(list.status).toBe(200);
      expect(list.text).toContain('Harbour Desk');

      // The account is the API's: its admin logs in there, on the chosen plan and country.
      const login = await call('POST', '/v1/accounts/login', { json: { email, password: form.password } });
      expect(login.status).toBe(200);
      expect(login.body.user.role).toBe('admin');
      expect(login.body.account).toMatchObject({ name: 'Harbour Desk', plan: 'basic', billing_country: 'FR' });

      // The same address again: the API's EMAIL_TAKEN, as the form again.
      const again = await appRequest(t.url, 'POST', '/app/signup', { cookie, form });
      expect(again.status).toBe(409);
      expect(again.text).toContain('name="csrf_token"');
      // Another site's form, or one without its token, is refused before anything.
      expect((await appRequest(t.url, 'POST', '/app/signup', { cookie, form: { ...form, csrf_token: 'x' } })).status).toBe(403);
    });

    it('resets a forgotten password through a mailed link that works once and ends every session and token', async () => {
      const a = await registerAccount(call);
      const browser = await signIn(t.url, a.email, a.password);
      const apiToken = a.token;

      // The same answer for an address no one uses, and no mail for it.
      const stranger = newAddress();
      const unknown = await askReset(stranger);
      const known = await askReset(a.email);
      expect(unknown.status).toBe(200);
      expect(known.status).toBe(200);
      const words = (page: string, address: string) => page.replaceAll(address, 'X').replace(/name="csrf_token" value="[^"]+"/, '').replace(/nonce="[^"]+"/g, '');
      expect(words(unknown.text, stranger)).toBe(words(known.text, a.email));
      expect(known.text).toContain('If an account uses');
      await t.settled();
      const links = await waitFor(async () => ((await resetLinks(a.email)).length === 1 ? resetLinks(a.email) : null), 'the reset mail');
      expect(await resetLinks(stranger)).toEqual([]);
      const { url, token } = links[0]!;
      expect(url.startsWith(`${t.service.deps.config.PUBLIC_BASE_URL}/app/password-reset/`)).toBe(true);
      // Only the token's digest is recorded.
      const recorded = await t.service.deps.knex('events').where({ type: 'PasswordResetRequested' }).whereRaw("data->>'user_id' = ?", [a.user.id]);
      expect(recorded).toHaveLength(1);
      expect(JSON.stringify(recorded)).not.toContain(token);

      const path = `/app/password-reset/${token}`;
      const { cookie, csrf, page } = await signedOutPage(t.url, path);
      expect(page.headers['referrer-policy']).toBe('same-origin');
      const differ = await appRequest(t.url, 'POST', path, { cookie, form: { csrf_token: csrf, password: 'a brand new password', confirm: 'another one entirely' } });
      expect(differ.status).toBe(422);
      const done = await appRequest(t.url, 'POST', path, { cookie, form: { csrf_token: csrf, password: 'a brand new password', confirm: 'a brand new password' } });
      expect(done.status, done.text.slice(0, 300)).toBe(303);
      expect(done.location).toMatch(/\/app\/login\?notice=password-reset$/);

      // Every session and token of before is ended; the new password signs in, the old one not.
      expect((await appRequest(t.url, 'GET', '/app/verifications', { cookie: browser.cookie })).status).toBe(303);
      expect((await call('GET', '/v1/accounts/me', { token: apiToken })).status).toBe(401);
      expect((await call('POST', '/v1/accounts/login', { json: { email: a.email, password: a.password } })).status).toBe(401);
      await signIn(t.url, a.email, 'a brand new password');

      // The link works once.
      const twice = await appRequest(t.url, 'POST', path, { cookie, form: { csrf_token: csrf, password: 'a third new password', confirm: 'a third new password' } });
      expect(twice.status).toBe(404);
      expect(twice.text).toContain('Ask for a new link');
      // A forged token naming the user, and a malformed one, open nothing.
      const forged = `pvr_${a.user.id.replace(/-/g, '')}_${crypto.randomBytes(32).toString('base64url')}`;
      expect((await appRequest(t.url, 'POST', `/app/password-reset/${forged}`, { cookie, form: { csrf_token: csrf, password: 'a third new password', confirm: 'a third new password' } })).status).toBe(404);
      expect((await appRequest(t.url, 'GET', '/app/password-reset/not-a-token')).status).toBe(404);
      expect((await call('POST', '/v1/accounts/login', { json: { email: a.email, password: 'a brand new password' } })).status).toBe(200);
    });

    it('a form posted to a path that is no reset link, without the page’s cookie, is sent to the reset page, never echoing the path into a header', async () => {
      // Schemathesis found a 500: the path's text went into the Location header, where a character such as 中 may not stand.
      for (const token of ['%E4%B8%AD%E6%96%87', '%C3%A9t%C3%A9', 'a%0D%0ASet-Cookie:%20x=1', 'pvr_short']) {
        const res = await fetch(`${t.url}/app/password-reset/${token}`, { method: 'POST', redirect: 'manual' });
        expect(res.status, token).toBe(303);
        expect(res.headers.get('location'), token).toBe('/app/password-reset');
        expect(res.headers.get('set-cookie'), token).toBeNull();
      }
    });

    it('honours only the latest link, and limits requests per client', async () => {
      const a = await registerAccount(call);
      expect((await askReset(a.email)).status).toBe(200);
      expect((await askReset(a.email)).status).toBe(200);
      await t.settled();
      const links = await waitFor(async () => ((await resetLinks(a.email)).length === 2 ? resetLinks(a.email) : null), 'both reset mails');
      const events = await t.service.deps.knex('events').where({ type: 'PasswordResetRequested' }).whereRaw("data->>'user_id' = ?", [a.user.id]).orderBy('position');
      const byDigest = new Map(links.map((l) => [crypto.createHash('sha256').update(l.token).digest('hex'), l]));
      const older = byDigest.get(events[0]!.data.token_sha256)!;
      const newer = byDigest.get(events[1]!.data.token_sha256)!;
      const send = async (token: string) => {
        const { cookie, csrf } = await signedOutPage(t.url, `/app/password-reset/${token}`);
        return appRequest(t.url, 'POST', `/app/password-reset/${token}`, { cookie, form: { csrf_token: csrf, password: 'chosen by the newer link', confirm: 'chosen by the newer link' } });
      };
      expect((await send(older.token)).status).toBe(404);
      expect((await send(newer.token)).status).toBe(303);

      // Five requests an hour per address and client: the sixth is the form again, 429, and sends nothing.
      const b = await registerAccount(call);
      for (let i = 0; i < 5; i++) expect((await askReset(b.email)).status).toBe(200);
      const limited = await askReset(b.email);
      expect(limited.status).toBe(429);
      expect(limited.text).toContain('name="csrf_token"');
      await t.settled();
      await waitFor(async () => (await resetLinks(b.email)).length === 5, 'five reset mails');
      expect(await resetLinks(b.email)).toHaveLength(5);
    });
  });
}

describe('a password reset link expires after an hour, on the service’s clock', () => {
  const clock = new SkewedClock();
  const { t, call } = serviceSuite(databaseTargets[0]!, {}, { clock });

  it('answers 410 with the form again, and leaves the password as it was', async () => {
    const a = await registerAccount(call);
    const { cookie, csrf } = await signedOutPage(t.url, '/app/password-reset');
    expect((await appRequest(t.url, 'POST', '/app/password-reset', { cookie, form: { csrf_token: csrf, email: a.email } })).status).toBe(200);
    await t.settled();
    const mail = await waitFor(async () => (await outbox(t.dataDir)).find((m) => to(m) === a.email && /Reset your/.test(m.subject ?? '')), 'the reset mail');
    const token = /\/app\/password-reset\/(pvr_\S+)/.exec(mail.text ?? '')![1]!;
    clock.advance(61 * 60_000);
    const page = await signedOutPage(t.url, `/app/password-reset/${token}`);
    const late = await appRequest(t.url, 'POST', `/app/password-reset/${token}`, { cookie: page.cookie, form: { csrf_token: page.csrf, password: 'too late a password', confirm: 'too late a password' } });
    expect(late.status).toBe(410);
    expect(late.text).toContain('expired');
    expect((await call('POST', '/v1/accounts/login', { json: { email: a.email, password: a.password } })).status).toBe(200);
  });
});
