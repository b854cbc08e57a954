import { describe, expect, it } from 'vitest';
import { systemContext } from '../../src/core/es/commands.js';
import { runCommand } from '../../src/core/es/decider.js';
import { apiKeyDecider, apiKeyStream } from '../../src/features/apikeys/decider.js';
import { databaseTargets } from '../support/databases.js';
import { registerAccount } from '../support/service.js';
import { serviceSuite } from '../support/suite.js';

/**
 * Principals of credentials are cached for a few seconds (D-048); these tests pin down that the
 * cache never lets a changed credential through: revocation through the API, revocation by
 * another process sharing the database (seen only through the projected events), and expiry.
 */
for (const target of databaseTargets) {
  describe(`credential cache on ${target.name}`, () => {
    const { t, call } = serviceSuite(target);

    async function newKey() {
      const { token, account } = await registerAccount(call);
      const { body: key } = await call('POST', '/v1/apikeys/', { token, json: { account_id: account.id } });
      return { token, account, key };
    }

    it('refuses a key revoked through the API at the very next request, although it was just used', async () => {
      const { token, key } = await newKey();
      expect((await call('GET', '/v1/accounts/me', { apiKey: key.raw_key })).status).toBe(200);
      expect((await call('GET', '/v1/accounts/me', { apiKey: key.raw_key })).status).toBe(200);
      expect((await call('DELETE', `/v1/apikeys/${key.id}`, { token })).status).toBe(204);
      const after = await call('GET', '/v1/accounts/me', { apiKey: key.raw_key });
      expect(after.status).toBe(401);
      expect(after.body.detail).toMatchObject({ error_code: 'INVALID_API_KEY', message: 'The API key has been revoked.' });
    });

    it('refuses a key revoked by another process once the revocation is projected', async () => {
      const { account, key } = await newKey();
      expect((await call('GET', '/v1/apikeys/', { token: key.raw_key })).status).toBe(200);
      // Another instance on the same database: its append reaches this one only through the log.
      const { deps } = t.service;
      const context = systemContext(deps, { actor: { type: 'system', id: 'other-instance' }, correlationId: 'revoke-elsewhere', accountId: account.id });
      const outcome = await runCommand(deps.store, apiKeyStream(key.id), apiKeyDecider, { type: 'RevokeApiKey', account_id: account.id, now: new Date() }, context);
      expect(outcome.position).not.toBeNull();
      expect(await deps.readModels.waitFor(outcome.position!, 30_000)).toBe(true);
      const after = await call('GET', '/v1/apikeys/', { token: key.raw_key });
      expect(after.status).toBe(401);
      expect(after.body.detail.error_code).toBe('INVALID_API_KEY');
    });

    it('keeps a principal no longer than its few seconds', async () => {
      const { key } = await newKey();
      const { deps } = t.service;
      const realNow = deps.now;
      let now = Date.now();
      deps.now = () => new Date(now);
      try {
        expect((await call('GET', '/v1/accounts/me', { apiKey: key.raw_key })).status).toBe(200);
        // Changed behind the events' back (nothing is projected): the cached principal stands...
        await deps.knex('api_keys').where({ id: key.id }).update({ revoked_at: new Date(now) });
        expect((await call('GET', '/v1/accounts/me', { apiKey: key.raw_key })).status).toBe(200);
        // ...until it expires.
        now += 6_000;
        expect((await call('GET', '/v1/accounts/me', { apiKey: key.raw_key })).status).toBe(401);
      } finally {
        deps.now = realNow;
      }
    });

    it('empties itself when an account changes', async () => {
      const { token, account } = await newKey();
      expect((await call('GET', '/v1/accounts/me', { token })).status).toBe(200);
      expect(t.service.deps.principals.size).toBeGreaterThan(0);
      expect((await call('PATCH', `/v1/accounts/${account.id}`, { token, json: { monthly_budget_cap_eur: 3 } })).status).toBe(200);
      expect(t.service.deps.principals.size).toBe(0);
    });
  });
}
