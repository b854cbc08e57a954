import { SignJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import { databaseTargets } from '../support/databases.js';
import { registerAccount } from '../support/service.js';
import { serviceSuite } from '../support/suite.js';

for (const target of databaseTargets) {
  describe(`accounts and login on ${target.name}`, () => {
    const { t, call } = serviceSuite(target, { LOGIN_RATE_LIMIT_PER_15_MIN: '5' });

    describe('registration', () => {
      it('creates an account on a plan with its first user as admin, billed by country', async () => {
        const res = await call('POST', '/v1/accounts', {
          json: { name: 'Agence Presse', plan: 'professional', billing_country: 'us', admin: { email: 'Chief@Presse.example', name: 'Chief', password: 'long password 123' } },
        });
        expect(res.status).toBe(201);
        expect(res.body.account).toMatchObject({ name: 'Agence Presse', plan: 'professional', billing_country: 'US', billing_currency: 'USD' });
        expect(res.body.user).toMatchObject({ email: 'chief@presse.example', role: 'admin', account_id: res.body.account.id });
        expect(res.body.user.password_hash).toBeUndefined();
      });

      it('refuses an e-mail that is already registered, case-insensitively, and writes nothing', async () => {
        await registerAccount(call, { admin: { email: 'taken@example.eu', name: 'A', password: 'long password 123' } });
        const before = await t.eventCount();
        const res = await call('POST', '/v1/accounts', { json: { name: 'Copycat', admin: { email: 'TAKEN@example.eu', name: 'B', password: 'long password 123' } } });
        expect(res.status).toBe(409);
        expect(res.body.detail.error_code).toBe('EMAIL_TAKEN');
        expect(await t.eventCount()).toBe(before);
      });

      it('lets exactly one of many simultaneous registrations of one address win', async () => {
        const results = await Promise.all(
          Array.from({ length: 6 }, (_, i) =>
            call('POST', '/v1/accounts', { json: { name: `Racer ${i}`, admin: { email: 'race@example.eu', name: 'R', password: 'long password 123' } } }),
          ),
        );
        expect(results.filter((r) => r.status === 201)).toHaveLength(1);
        expect(results.filter((r) => r.status === 409).every((r) => r.body.detail.error_code === 'EMAIL_TAKEN')).toBe(true);
      });

      it.each([
        ['missing admin', { name: 'X' }, ['body', 'admin'], 'missing'],
        ['wrong type', { name: 42, admin: { email: 'a@b.eu', name: 'A', password: 'long password 1' } }, ['body', 'name'], 'string_type'],
        ['unknown field', { name: 'X', is_superuser: true, admin: { email: 'a@b.eu', name: 'A', password: 'long password 1' } }, ['body', 'is_superuser'], 'extra_forbidden'],
        ['bad e-mail', { name: 'X', admin: { email: 'not-an-email', name: 'A', password: 'long password 1' } }, ['body', 'admin', 'email'], 'invalid_email'],
        ['short password', { name: 'X', admin: { email: 'a@b.eu', name: 'A', password: 'short' } }, ['body', 'admin', 'password'], 'string_too_short'],
        ['unknown plan', { name: 'X', plan: 'platinum', admin: { email: 'a@b.eu', name: 'A', password: 'long password 1' } }, ['body', 'plan'], 'enum'],
        ['bad country', { name: 'X', billing_country: 'Germany', admin: { email: 'a@b.eu', name: 'A', password: 'long password 1' } }, ['body', 'billing_country'], 'invalid_regex'],
        ['prototype pollution', JSON.parse('{"name":"X","__proto__":{"admin":1},"admin":{"email":"a@b.eu","name":"A","password":"long password 1"}}'), ['body', '__proto__'], 'extra_forbidden'],
      ])('rejects %s with the 422 list form and writes nothing', async (_label, json, loc, type) => {
        const before = await t.eventCount();
        const res = await call('POST', '/v1/accounts', { json });
        expect(res.status).toBe(422);
        expect(res.body.detail).toEqual(expect.arrayContaining([expect.objectContaining({ loc, type, msg: expect.any(String) })]));
        expect(await t.eventCount()).toBe(before);
      });
    });

    describe('login and tokens', () => {
      it('returns a bearer JWT that authenticates the user', async () => {
        const { token, user, account } = await registerAccount(call);
        const me = await call('GET', '/v1/accounts/me', { token });
        expect(me.status).toBe(200);
        expect(me.body).toMatchObject({ user: { id: user.id }, account: { id: account.id }, authenticated_via: 'jwt' });
      });

      it('refuses a wrong password and an unknown address with the same answer', async () => {
        const { email } = await registerAccount(call);
        const wrong = await call('POST', '/v1/accounts/login', { json: { email, password: 'not the password' } });
        const unknown = await call('POST', '/v1/accounts/login', { json: { email: 'nobody@example.eu', password: 'not the password' } });
        for (const res of [wrong, unknown]) {
          expect(res.status).toBe(401);
          expect(res.body.detail.error_code).toBe('INVALID_CREDENTIALS');
        }
        expect(wrong.body.detail.message).toBe(unknown.body.detail.message);
      });

      it('limits repeated failed logins per address with 429 and Retry-After', async () => {
        const { email, password } = await registerAccount(call);
        for (let i = 0; i < 5; i++) expect((await call('POST', '/v1/accounts/login', { json: { email, password: 'wrong password' } })).status).toBe(401);
        const limited = await call('POST', '/v1/accounts/login', { json: { email, password } });
        expect(limited.status).toBe(429);
        expect(limited.body.detail.error_code).toBe('RATE_LIMIT_EXCEEDED');
        expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
      });

      it('rejects missing, garbage, tampered, foreign and expired tokens with 401', async () => {
        const { token, user, account } = await registerAccount(call);
        const none = await call('GET', '/v1/accounts/me');
        expect(none.status).toBe(401);
        expect(none.body.detail.error_code).toBe('AUTHENTICATION_REQUIRED');
        expect(none.headers.get('www-authenticate')).toBe('Bearer');

        const garbage = await call('GET', '/v1/accounts/me', { token: 'not.a.jwt' });
        expect(garbage.body.detail.error_code).toBe('INVALID_TOKEN');

        const [header, payload, signature] = token.split('.');
        const flipped = signature!.startsWith('A') ? `B${signature!.slice(1)}` : `A${signature!.slice(1)}`;
        expect((await call('GET', '/v1/accounts/me', { token: `${header}.${payload}.${flipped}` })).status).toBe(401);

        const foreignKey = new TextEncoder().encode('an attacker secret that is long enough!!');
        const forged = await new SignJWT({ acc: account.id, role: 'admin' }).setProtectedHeader({ alg: 'HS256' }).setSubject(user.id).setIssuer('photoverify').setAudience('photoverify-api').setExpirationTime('1h').sign(foreignKey);
        expect((await call('GET', '/v1/accounts/me', { token: forged })).status).toBe(401);

        const unsigned = `${Buffer.from(JSON.stringify({ alg: 'none' })).toString('base64url')}.${payload}.`;
        expect((await call('GET', '/v1/accounts/me', { token: unsigned })).status).toBe(401);

        const expired = await new SignJWT({ acc: account.id, role: 'admin' }).setProtectedHeader({ alg: 'HS256' }).setSubject(user.id).setIssuer('photoverify').setAudience('photoverify-api').setIssuedAt(1_600_000_000).setExpirationTime(1_600_000_600).sign(t.service.deps.jwtSecret);
        const res = await call('GET', '/v1/accounts/me', { token: expired });
        expect(res.status).toBe(401);
        expect(res.body.detail.message).toContain('expired');

        const basic = await call('GET', '/v1/accounts/me', { headers: { authorization: 'Basic dXNlcjpwYXNz' } });
        expect(basic.status).toBe(401);
      });
    });

    describe('plan, billing country and budget cap', () => {
      it('lets an admin change them, recorded as one event with the actor, and usage follows at once', async () => {
        const admin = await registerAccount(call);
        const changed = await call('PATCH', `/v1/accounts/${admin.account.id}`, { token: admin.token, json: { plan: 'basic', monthly_budget_cap_eur: 12.5, billing_country: 'us' } });
        expect(changed.status).toBe(200);
        expect(changed.body).toMatchObject({ plan: 'basic', monthly_budget_cap_eur: 12.5, billing_country: 'US', billing_currency: 'USD' });
        const usage = await call('GET', `/v1/accounts/${admin.account.id}/usage`, { token: admin.token });
        expect(usage.body).toMatchObject({ plan: 'basic', included: 25, monthly_budget_cap: 12.5, currency: 'USD' });
        const audit = await call('GET', `/v1/audit/streams/account-${admin.account.id}`, { token: admin.token });
        const event = audit.body.events.find((e: { type: string }) => e.type === 'AccountSettingsChanged');
        expect(event.data).toMatchObject({ plan: 'basic', monthly_budget_cap_eur: 12.5, billing_country: 'US' });
        expect(event.metadata.actor).toEqual({ type: 'user', id: admin.user.id });
        // The same settings again change nothing and record nothing.
        const before = await t.eventCount();
        expect((await call('PATCH', `/v1/accounts/${admin.account.id}`, { token: admin.token, json: { plan: 'basic' } })).status).toBe(200);
        expect(await t.eventCount()).toBe(before);
        // Removing the cap ends overage.
        const uncapped = await call('PATCH', `/v1/accounts/${admin.account.id}`, { token: admin.token, json: { monthly_budget_cap_eur: null } });
        expect(uncapped.body.monthly_budget_cap_eur).toBeNull();
      });

      it('refuses members, API keys, other accounts and Enterprise, and writes nothing', async () => {
        const admin = await registerAccount(call);
        const other = await registerAccount(call);
        await call('POST', `/v1/accounts/${admin.account.id}/users`, { token: admin.token, json: { email: `m-${admin.account.id}@org.example`, name: 'M', password: 'member password 1' } });
        const member = await call('POST', '/v1/accounts/login', { json: { email: `m-${admin.account.id}@org.example`, password: 'member password 1' } });
        const key = await call('POST', '/v1/apikeys/', { token: admin.token, json: { account_id: admin.account.id } });
        const patch = (opts: { token?: string; apiKey?: string }, json: unknown, id = admin.account.id) => call('PATCH', `/v1/accounts/${id}`, { ...opts, json });
        // Before the count: a key's use is itself recorded (last_used_at).
        expect((await patch({ apiKey: key.body.raw_key }, { plan: 'professional' })).status).toBe(403);
        const before = await t.eventCount();
        const byMember = await patch({ token: member.body.access_token }, { plan: 'professional' });
        expect([byMember.status, byMember.body.detail.error_code]).toEqual([403, 'ACCESS_DENIED']);
        expect((await patch({ token: other.token }, { plan: 'professional' })).status).toBe(403);
        const enterprise = await patch({ token: admin.token }, { plan: 'enterprise' });
        expect(enterprise.status).toBe(422);
        expect(enterprise.body.detail[0]).toMatchObject({ loc: ['body', 'plan'], msg: 'Input should be one of: "free", "basic", "professional".' });
        for (const bad of [{}, { plan: 'gold' }, { monthly_budget_cap_eur: -1 }, { billing_country: 'Germany' }, { name: 'renamed' }]) {
          expect((await patch({ token: admin.token }, bad)).status, JSON.stringify(bad)).toBe(422);
        }
        expect((await call('POST', '/v1/accounts', { json: { name: 'Big', plan: 'enterprise', admin: { email: 'big@example.eu', name: 'B', password: 'long password 123' } } })).status).toBe(422);
        expect(await t.eventCount()).toBe(before);
        expect((await call('GET', `/v1/accounts/${admin.account.id}`, { token: admin.token })).body.plan).toBe('free');
      });
    });

    describe('users and account access', () => {
      it('lets an admin add a member who can then log in; members cannot add users', async () => {
        const admin = await registerAccount(call);
        const added = await call('POST', `/v1/accounts/${admin.account.id}/users`, { token: admin.token, json: { email: 'member@org.example', name: 'Member', password: 'member password 1' } });
        expect(added.status).toBe(201);
        expect(added.body).toMatchObject({ role: 'member', account_id: admin.account.id });
        const login = await call('POST', '/v1/accounts/login', { json: { email: 'member@org.example', password: 'member password 1' } });
        expect(login.status).toBe(200);
        const byMember = await call('POST', `/v1/accounts/${admin.account.id}/users`, { token: login.body.access_token, json: { email: 'x@org.example', name: 'X', password: 'member password 1' } });
        expect(byMember.status).toBe(403);
        expect(byMember.body.detail.error_code).toBe('ACCESS_DENIED');
        const users = await call('GET', `/v1/accounts/${admin.account.id}/users`, { token: login.body.access_token });
        expect(users.body.items.map((u: { email: string }) => u.email).sort()).toEqual([admin.email, 'member@org.example'].sort());
      });

      it('denies access to another account with 403 ACCESS_DENIED and writes nothing', async () => {
        const a = await registerAccount(call);
        const b = await registerAccount(call);
        const before = await t.eventCount();
        const read = await call('GET', `/v1/accounts/${b.account.id}`, { token: a.token });
        expect(read.status).toBe(403);
        expect(read.body.detail.error_code).toBe('ACCESS_DENIED');
        const add = await call('POST', `/v1/accounts/${b.account.id}/users`, { token: a.token, json: { email: 'intruder@example.eu', name: 'I', password: 'long password 123' } });
        expect(add.status).toBe(403);
        expect((await call('GET', `/v1/accounts/${b.account.id}/users`, { token: a.token })).status).toBe(403);
        expect((await call('GET', '/v1/accounts/not-a-uuid', { token: a.token })).status).toBe(422);
        expect(await t.eventCount()).toBe(before);
      });
    });
  });
}
