import crypto from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { databaseTargets } from '../support/databases.js';
import { addMember } from '../support/members.js';
import { registerAccount } from '../support/service.js';
import { SESSIONS_OUTLIVE_CLOCK } from '../support/clock.js';
import { serviceSuite } from '../support/suite.js';

for (const target of databaseTargets) {
  describe(`API keys on ${target.name}`, () => {
    const { t, call } = serviceSuite(target, SESSIONS_OUTLIVE_CLOCK);

    const createKey = (token: string, json: Record<string, unknown>) => call('POST', '/v1/apikeys/', { token, json });

    it('creates a key whose raw value is shown once and stored only as a hash', async () => {
      const { token, account, user } = await registerAccount(call);
      const created = await createKey(token, { account_id: account.id, description: 'newsroom ingest' });
      expect(created.status).toBe(201);
      expect(created.headers.get('cache-control')).toBe('no-store');
      expect(created.body).toMatchObject({ account_id: account.id, user_id: user.id, description: 'newsroom ingest', scope: 'full' });
      expect(created.body.raw_key).toMatch(new RegExp(`^pv_${created.body.prefix}_`));
      const days = (new Date(created.body.expires_at).getTime() - new Date(created.body.created_at).getTime()) / 86_400_000;
      expect(days).toBe(365);

      const listed = await call('GET', '/v1/apikeys/', { token });
      expect(listed.status).toBe(200);
      expect(listed.body).toHaveLength(1);
      expect(listed.body[0]).toMatchObject({ id: created.body.id, is_active: true, last_used_at: null });
      expect(JSON.stringify(listed.body)).not.toContain(created.body.raw_key);

      const row = await t.service.deps.knex('api_keys').where({ id: created.body.id }).first();
      expect(row.key_hash).toMatch(/^[0-9a-f]{64}$/);
      const log = await t.service.deps.knex('events').whereRaw('data::text like ?', [`%${created.body.raw_key}%`]);
      expect(log).toHaveLength(0);
    });

    it('authenticates with X-API-Key or as a bearer token and records last_used_at', async () => {
      const { token, account } = await registerAccount(call);
      const { body: key } = await createKey(token, { account_id: account.id });
      const viaHeader = await call('GET', '/v1/accounts/me', { apiKey: key.raw_key });
      expect(viaHeader.status).toBe(200);
      expect(viaHeader.body.authenticated_via).toBe('api_key');
      const viaBearer = await call('GET', '/v1/accounts/me', { token: key.raw_key });
      expect(viaBearer.status).toBe(200);
      const listed = await call('GET', '/v1/apikeys/', { apiKey: key.raw_key });
      expect(listed.body[0].last_used_at).not.toBeNull();
    });

    it('rejects revoked keys at once', async () => {
      const { token, account } = await registerAccount(call);
      const { body: key } = await createKey(token, { account_id: account.id });
      const revoked = await call('DELETE', `/v1/apikeys/${key.id}`, { token });
      expect(revoked.status).toBe(204);
      expect(revoked.body).toBeNull();
      const res = await call('GET', '/v1/accounts/me', { apiKey: key.raw_key });
      expect(res.status).toBe(401);
      expect(res.body.detail).toMatchObject({ error_code: 'INVALID_API_KEY', message: 'The API key has been revoked.' });
      const listed = await call('GET', '/v1/apikeys/', { token });
      expect(listed.body[0].is_active).toBe(false);
      expect((await call('DELETE', `/v1/apikeys/${key.id}`, { token })).status).toBe(204);
    });

    it('rejects expired keys and lists them as inactive', async () => {
      const { token, account } = await registerAccount(call);
      const { body: key } = await createKey(token, { account_id: account.id, expires_in_days: 1 });
      const realNow = t.service.deps.now;
      t.service.deps.now = () => new Date(Date.now() + 2 * 86_400_000);
      try {
        const res = await call('GET', '/v1/accounts/me', { apiKey: key.raw_key });
        expect(res.status).toBe(401);
        expect(res.body.detail.message).toBe('The API key has expired.');
        const listed = await call('GET', '/v1/apikeys/', { token });
        expect(listed.body.find((k: { id: string }) => k.id === key.id).is_active).toBe(false);
      } finally {
        t.service.deps.now = realNow;
      }
    });

    it('rejects garbage and unknown keys with 401 INVALID_API_KEY', async () => {
      for (const apiKey of ['garbage', 'pv_abc', `pv_AAAAAAAAAAAA_${'x'.repeat(43)}`, "pv_' or 1=1 --"]) {
        const res = await call('GET', '/v1/apikeys/', { apiKey });
        expect(res.status).toBe(401);
        expect(res.body.detail.error_code).toBe('INVALID_API_KEY');
      }
    });

    it('requires a JWT to create keys and refuses other accounts', async () => {
      const a = await registerAccount(call);
      const b = await registerAccount(call);
      const { body: key } = await createKey(a.token, { account_id: a.account.id });
      const withKey = await call('POST', '/v1/apikeys/', { apiKey: key.raw_key, json: { account_id: a.account.id } });
      expect(withKey.status).toBe(403);
      expect(withKey.body.detail.error_code).toBe('ACCESS_DENIED');
      const foreign = await createKey(a.token, { account_id: b.account.id });
      expect(foreign.status).toBe(403);
      expect(foreign.body.detail.error_code).toBe('ACCESS_DENIED');
      const { body: bKey } = await createKey(b.token, { account_id: b.account.id });
      const afterB = await t.eventCount();
      const deleteForeign = await call('DELETE', `/v1/apikeys/${bKey.id}`, { token: a.token });
      expect(deleteForeign.status).toBe(404);
      expect(deleteForeign.body.detail.error_code).toBe('API_KEY_NOT_FOUND');
      expect(await t.eventCount()).toBe(afterB);
      const keysOfB = await t.service.deps.knex('api_keys').where({ account_id: b.account.id });
      expect(keysOfB.map((k) => k.id)).toEqual([bKey.id]);
      expect((await call('GET', '/v1/accounts/me', { apiKey: bKey.raw_key })).status).toBe(200);
      const listedByA = await call('GET', '/v1/apikeys/', { token: a.token });
      expect(listedByA.body.map((k: { id: string }) => k.id)).toEqual([key.id]);
    });

    it.each([
      [{ expires_in_days: 0 }, 'expires_in_days'],
      [{ expires_in_days: 1.5 }, 'expires_in_days'],
      [{ expires_in_days: '30' }, 'expires_in_days'],
      [{ expires_in_days: 100000 }, 'expires_in_days'],
      [{ scope: 'admin' }, 'scope'],
      [{ owner: 'me' }, 'owner'],
    ])('validates %j', async (extra, field) => {
      const { token, account } = await registerAccount(call);
      const before = await t.eventCount();
      const res = await createKey(token, { account_id: account.id, ...extra });
      expect(res.status).toBe(422);
      expect(res.body.detail.map((d: { loc: string[] }) => d.loc.join('.'))).toContain(`body.${field}`);
      expect(await t.eventCount()).toBe(before);
    });

    it('keeps read-scoped keys to reads', async () => {
      const { token, account } = await registerAccount(call);
      const { body: key } = await createKey(token, { account_id: account.id, scope: 'read' });
      expect((await call('GET', '/v1/apikeys/', { apiKey: key.raw_key })).status).toBe(200);
      const del = await call('DELETE', `/v1/apikeys/${key.id}`, { apiKey: key.raw_key });
      expect(del.status).toBe(403);
      expect(del.body.detail.message).toContain('read scope');
    });

    it('shows a member only the keys they created and lets them revoke only those; an admin manages every key of the account (D-079)', async () => {
      const admin = await registerAccount(call);
      const member = await addMember(call, admin, 'member', 'Mia Member');
      const colleague = await addMember(call, admin, 'member', 'Carl Colleague');
      const other = await registerAccount(call);
      const key = async (token: string, account_id: string, description: string) => (await createKey(token, { account_id, description })).body as { id: string; raw_key: string };
      const adminKey = await key(admin.token, admin.account.id, 'admin');
      const memberKey = await key(member.token, admin.account.id, 'member');
      const colleagueKey = await key(colleague.token, admin.account.id, 'colleague');
      const otherKey = await key(other.token, other.account.id, 'other account');
      const ids = async (credentials: { token?: string; apiKey?: string }) => {
        const listed = await call('GET', '/v1/apikeys/', credentials);
        expect(listed.status).toBe(200);
        return (listed.body as { id: string }[]).map((k) => k.id).sort();
      };
      const ofAccount = [adminKey.id, memberKey.id, colleagueKey.id].sort();

      // Listing: a member (by login or by their key) sees their own keys; an admin (either way) every key of the account.
      expect(await ids({ token: member.token })).toEqual([memberKey.id]);
      expect(await ids({ apiKey: memberKey.raw_key })).toEqual([memberKey.id]);
      expect(await ids({ token: admin.token })).toEqual(ofAccount);
      expect(await ids({ apiKey: adminKey.raw_key })).toEqual(ofAccount);
      expect(await ids({ token: other.token })).toEqual([otherKey.id]);

      // Revoking someone else's key: as unknown as a key of another account, and nothing is recorded.
      const before = await t.eventCount();
      for (const [credentials, target] of [
        [{ token: member.token }, adminKey.id],
        [{ apiKey: memberKey.raw_key }, adminKey.id],
        [{ token: member.token }, colleagueKey.id],
        [{ token: member.token }, otherKey.id],
        [{ token: admin.token }, otherKey.id],
      ] as const) {
        const refused = await call('DELETE', `/v1/apikeys/${target}`, credentials);
        expect([refused.status, refused.body.detail.error_code]).toEqual([404, 'API_KEY_NOT_FOUND']);
      }
      const unknown = await call('DELETE', `/v1/apikeys/${crypto.randomUUID()}`, { token: member.token });
      expect(unknown.body).toEqual((await call('DELETE', `/v1/apikeys/${adminKey.id}`, { token: member.token })).body);
      expect(await t.eventCount()).toBe(before);
      for (const working of [adminKey, colleagueKey, otherKey]) expect((await call('GET', '/v1/accounts/me', { apiKey: working.raw_key })).status).toBe(200);

      // Revoking what one manages: a member their own key, an admin a colleague's.
      expect((await call('DELETE', `/v1/apikeys/${memberKey.id}`, { token: member.token })).status).toBe(204);
      expect((await call('DELETE', `/v1/apikeys/${colleagueKey.id}`, { token: admin.token })).status).toBe(204);
      for (const revoked of [memberKey, colleagueKey]) expect((await call('GET', '/v1/accounts/me', { apiKey: revoked.raw_key })).status).toBe(401);

      // A key acts with its user's role as it is now: promoted, the colleague's new key sees every key.
      const promotedKey = await key(colleague.token, admin.account.id, 'colleague again');
      expect(await ids({ apiKey: promotedKey.raw_key })).toEqual([colleagueKey.id, promotedKey.id].sort());
      expect((await call('PATCH', `/v1/accounts/${admin.account.id}/users/${colleague.user.id}`, { token: admin.token, json: { role: 'admin' } })).status).toBe(200);
      expect(await ids({ apiKey: promotedKey.raw_key })).toEqual([...ofAccount, promotedKey.id].sort());
    });
  });
}
