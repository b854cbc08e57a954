import { describe, expect, it } from 'vitest';
import { databaseTargets } from '../support/databases.js';
import { registerAccount } from '../support/service.js';
import { serviceSuite } from '../support/suite.js';

for (const target of databaseTargets) {
  describe(`audit history on ${target.name}`, () => {
    const { call } = serviceSuite(target, { PROCESSING_REGION: 'eu-west-3' });

    it("returns a stream's ordered events with actor, causation, correlation, region and timestamps", async () => {
      const { token, account, user } = await registerAccount(call);
      const created = await call('POST', '/v1/apikeys/', { token, json: { account_id: account.id }, headers: { 'x-request-id': 'req-create-key-1' } });
      await call('DELETE', `/v1/apikeys/${created.body.id}`, { token });

      const res = await call('GET', `/v1/audit/streams/apikey-${created.body.id}`, { token });
      expect(res.status).toBe(200);
      expect(res.body.events.map((e: { type: string }) => e.type)).toEqual(['ApiKeyCreated', 'ApiKeyRevoked']);
      const [first, second] = res.body.events;
      expect(first.metadata).toMatchObject({
        account_id: account.id,
        actor: { type: 'user', id: user.id },
        correlation_id: 'req-create-key-1',
        causation_id: 'req-create-key-1',
        processing_region: 'eu-west-3',
      });
      expect(first.data.key_hash).toBe('[redacted]');
      expect(BigInt(second.position)).toBeGreaterThan(BigInt(first.position));
      expect([first.revision, second.revision]).toEqual([0, 1]);
      expect(Date.parse(first.recorded_at)).not.toBeNaN();

      const accountStream = await call('GET', `/v1/audit/streams/account-${account.id}`, { token });
      expect(accountStream.body.events.map((e: { type: string }) => e.type)).toEqual(['AccountRegistered', 'UserAdded']);
      expect(accountStream.body.events[1].data.password_hash).toBe('[redacted]');
    });

    it("lists the caller's streams", async () => {
      const { token, account } = await registerAccount(call);
      const res = await call('GET', '/v1/audit/streams', { token });
      expect(res.status).toBe(200);
      expect(res.body.items.map((s: { stream: string }) => s.stream)).toContain(`account-${account.id}`);
      expect(res.body.total).toBe(res.body.items.length);
    });

    it("hides other accounts' streams and unknown streams behind 404", async () => {
      const a = await registerAccount(call);
      const b = await registerAccount(call);
      for (const stream of [`account-${b.account.id}`, 'account-00000000-0000-0000-0000-000000000000']) {
        const res = await call('GET', `/v1/audit/streams/${stream}`, { token: a.token });
        expect(res.status).toBe(404);
        expect(res.body.detail.error_code).toBe('STREAM_NOT_FOUND');
      }
      const listed = await call('GET', '/v1/audit/streams', { token: a.token });
      expect(listed.body.items.map((s: { stream: string }) => s.stream)).not.toContain(`account-${b.account.id}`);
      expect((await call('GET', '/v1/audit/streams/..%2F..%2Fetc', { token: a.token })).status).toBe(422);
      expect((await call('GET', `/v1/audit/streams/account-${a.account.id}?limit=0`, { token: a.token })).status).toBe(422);
    });
  });
}
