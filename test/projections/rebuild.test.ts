import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allProjectors } from '../../src/modules.js';
import { ProjectionGapError, ProjectionRunner } from '../../src/adapters/db/projection-runner.js';
import { openSharedReport } from '../../src/features/sharing/use-cases.js';
import { databaseTargets } from '../support/databases.js';
import { keylessVerify } from '../support/mcp.js';
import { client, registerAccount, startTestService, type TestService } from '../support/service.js';

/** Every read-model row, once the projectors have reached the head of the log. */
async function snapshot(t: TestService): Promise<Record<string, unknown[]>> {
  const { knex, store } = t.service.deps;
  const projections = t.service.projections;
  expect(await projections.waitFor(await store.headPosition(), 10_000)).toBe(true);
  const tables: Record<string, unknown[]> = {};
  for (const projector of allProjectors) {
    for (const table of projector.tables) {
      const rows = await knex(table).select('*');
      tables[table] = rows.map((r) => JSON.stringify(r)).sort();
    }
  }
  return tables;
}

const pairs = path.resolve(import.meta.dirname, '../../../shared/fixtures/pairs/canon_eos_6d_dng');

for (const target of databaseTargets) {
  describe(`projections on ${target.name}`, () => {
    let t: TestService;
    beforeAll(async () => {
      t = await startTestService(target);
      const call = client(t.url);
      // A history touching every read model: accounts (settings changed), users, keys created, used and revoked.
      for (let i = 0; i < 3; i++) {
        const { token, account } = await registerAccount(call);
        await call('PATCH', `/v1/accounts/${account.id}`, { token, json: { plan: 'basic', monthly_budget_cap_eur: i } });
        await call('POST', `/v1/accounts/${account.id}/users`, { token, json: { email: `m${i}-${crypto.randomUUID()}@example.eu`, name: 'M', password: 'long password 123' } });
        const key = await call('POST', '/v1/apikeys/', { token, json: { account_id: account.id, description: `key ${i}` } });
        await call('GET', '/v1/apikeys/', { apiKey: key.body.raw_key });
        if (i === 1) await call('DELETE', `/v1/apikeys/${key.body.id}`, { token });
        // Verifications: a pair (metered), an image-only one, one of them deleted, one claimed.
        const form = (pair: boolean) => {
          const body = new FormData();
          body.append('image', new Blob([new Uint8Array(fs.readFileSync(path.join(pairs, pair ? 'canon_eos_6d.preview.jpg' : '../../images/rs_sample1.webp')))]), pair ? 'a.jpg' : 'b.webp');
          if (pair) body.append('raw', new Blob([new Uint8Array(fs.readFileSync(path.join(pairs, 'canon_eos_6d.dng')))]), 'a.dng');
          return body;
        };
        const created = await fetch(`${t.url}/v1/verifications/`, { method: 'POST', headers: { authorization: `Bearer ${token}` }, body: form(i !== 2) }).then((r) => r.json());
        // Keyless verification is the MCP free tier.
        const anonymous = (await keylessVerify(t.url, { image: fs.readFileSync(path.join(pairs, '../../images/rs_sample1.webp')) })).output;
        await t.settled();
        // Sharing: a share with invitations and views (i = 2), one removed (i = 1), one whose verification is deleted (i = 0).
        const share = `/v1/verifications/${created.id}/share`;
        const link = await call('POST', share, { token, json: { access_type: 'restricted' } });
        await call('POST', `${share}/invites`, { token, json: { email: `judge${i}@example.eu` } });
        await call('POST', `${share}/invites`, { token, json: { email: `editor${i}@example.eu` } });
        await call('DELETE', `${share}/invites`, { token, json: { email: `judge${i}@example.eu` } });
        await call('POST', share, { token, json: { access_type: 'anyone_with_link' } });
        for (const visitorKey of ['a', 'b', 'a']) await openSharedReport(t.service.deps, { token: link.body.share_url.split('/').pop(), viewer: null, visitorKey });
        if (i === 1) await call('DELETE', share, { token });
        if (i === 0) await call('DELETE', `/v1/verifications/${created.id}`, { token });
        if (i === 1) await call('POST', '/v1/verifications/claim', { token, json: { anonymous_user_id: anonymous.anonymous_user_id } });
      }
    });
    afterAll(async () => t?.stop());

    it('rebuilds every read model from the events into identical rows', async () => {
      const before = await snapshot(t);
      expect(before.accounts).toHaveLength(3);
      expect(before.users).toHaveLength(6);
      expect(before.api_keys).toHaveLength(3);
      expect(before.verifications).toHaveLength(5);
      expect(before.verification_results!.length).toBeGreaterThan(10);
      expect(before.usage_meterings).toHaveLength(2);
      expect(before.shares).toHaveLength(1);
      expect(before.share_invites).toHaveLength(1);
      expect(before.share_views).toHaveLength(4);
      await t.service.projections.rebuild();
      expect(await snapshot(t)).toEqual(before);
    });

    it('applies a replayed event idempotently', async () => {
      const before = await snapshot(t);
      const events = await t.service.deps.store.readAll({ after: 0n, limit: 10_000 });
      await t.service.deps.knex.transaction(async (trx) => {
        for (const event of events) for (const projector of allProjectors) await projector.apply(trx, event);
      });
      expect(await snapshot(t)).toEqual(before);
    });

    it('stops loudly at a hole in the log instead of skipping it', async () => {
      const { knex, store } = t.service.deps;
      const head = await store.headPosition();
      // Simulate a corrupted log in a scratch copy of the events: move the last event two slots up.
      await knex('events').where({ position: head.toString() }).update({ position: (head + 2n).toString() });
      try {
        const runner = new ProjectionRunner(knex, store, allProjectors);
        await knex('projection_checkpoints').update({ position: (head - 1n).toString() });
        await runner.migrate();
        await expect(runner.catchUp(allProjectors[0]!)).rejects.toBeInstanceOf(ProjectionGapError);
      } finally {
        await knex('events').where({ position: (head + 2n).toString() }).update({ position: head.toString() });
        await knex('projection_checkpoints').update({ position: head.toString() });
      }
    });
  });
}
