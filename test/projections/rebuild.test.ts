import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { simpleParser } from 'mailparser';
import { beforeAll, describe, expect, it } from 'vitest';
import { allProjectors } from '../../src/modules.js';
import { ProjectionGapError, ProjectionRunner } from '../../src/adapters/db/projection-runner.js';
import { verifyChain } from '../../src/core/audit/hash-chain.js';
import { openSharedReport } from '../../src/features/sharing/use-cases.js';
import { databaseTargets } from '../support/databases.js';
import { callTool, connectMcp, keylessVerify } from '../support/mcp.js';
import { registerAccount, type TestService } from '../support/service.js';
import { serviceSuite } from '../support/suite.js';
import { appRequest, signIn } from '../support/webapp.js';

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
    const { t, call } = serviceSuite(target);
    async function uploadTwo(apiKey: string) {
      const agent = await connectMcp(t.url, apiKey);
      try {
        const image = fs.readFileSync(path.join(pairs, '../../images/rs_sample1.webp'));
        const tickets = [];
        for (const filename of ['used.webp', 'waiting.webp']) {
          const ticket = (await callTool(agent, 'create_upload', { filename })).output;
          expect((await fetch(ticket.upload_url, { method: 'PUT', body: new Uint8Array(image) })).status).toBe(200);
          tickets.push(ticket);
        }
        expect((await callTool(agent, 'verify_image', { image: { upload_id: tickets[0].upload_id }, wait_seconds: 0 })).result.isError).toBeFalsy();
      } finally {
        await agent.close();
      }
    }

    beforeAll(async () => {
      // A history touching every read model: accounts (settings changed), users (added, promoted, removed), keys created, used and revoked.
      for (let i = 0; i < 3; i++) {
        const { token, account, password, email: adminEmail } = await registerAccount(call);
        await call('PATCH', `/v1/accounts/${account.id}`, { token, json: { plan: 'basic', monthly_budget_cap_eur: i } });
        const member = await call('POST', `/v1/accounts/${account.id}/users`, { token, json: { email: `m${i}-${crypto.randomUUID()}@example.eu`, name: 'M', password: 'long password 123' } });
        // Members: one promoted (i = 1), one removed (i = 2).
        if (i === 1) await call('PATCH', `/v1/accounts/${account.id}/users/${member.body.id}`, { token, json: { role: 'admin' } });
        if (i === 2) await call('DELETE', `/v1/accounts/${account.id}/users/${member.body.id}`, { token });
        // Invitations: one left open (i = 1), one accepted (i = 2).
        if (i >= 1) {
          const email = `invited${i}-${crypto.randomUUID()}@example.eu`;
          await call('POST', `/v1/accounts/${account.id}/users`, { token, json: { email, name: 'Invited', role: 'member' } });
          if (i === 2) {
            await t.settled();
            const dir = path.join(t.dataDir, 'outbox');
            const mails = await Promise.all(fs.readdirSync(dir).map((f) => simpleParser(fs.readFileSync(path.join(dir, f)))));
            const mail = mails.find((m) => (Array.isArray(m.to) ? m.to[0] : m.to)?.text === email)!;
            const invitation = /#(pvi_[A-Za-z0-9_-]{43})/.exec(mail.text ?? '')![1];
            await call('POST', '/v1/accounts/invitations/accept', { json: { token: invitation, password: 'long password 123' } });
          }
        }
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
        // Comments: added and edited, one deleted (i = 1); those of the deleted verification (i = 0) go with it.
        const comments = `/v1/verifications/${created.id}/comments`;
        const first = await call('POST', comments, { token, json: { body: `first ${i}` } });
        await call('PATCH', `${comments}/${first.body.id}`, { token, json: { body: `edited ${i}` } });
        const second = await call('POST', comments, { token, json: { body: `second ${i}` } });
        if (i === 1) await call('DELETE', `${comments}/${second.body.id}`, { token });
        // Sharing: a share with invitations and views (i = 2), one removed (i = 1), one whose verification is deleted (i = 0).
        const share = `/v1/verifications/${created.id}/share`;
        const link = await call('POST', share, { token, json: { access_type: 'restricted' } });
        await call('POST', `${share}/invites`, { token, json: { email: `judge${i}@example.eu` } });
        await call('POST', `${share}/invites`, { token, json: { email: `editor${i}@example.eu` } });
        await call('DELETE', `${share}/invites`, { token, json: { email: `judge${i}@example.eu` } });
        await call('POST', share, { token, json: { access_type: 'anyone_with_link' } });
        for (const visitorKey of ['a', 'b', 'a']) await openSharedReport(t.service.deps, { token: link.body.share_url.split('/').pop(), viewer: null, visitorKey });
        if (i === 1) await call('DELETE', share, { token });
        // Tags: a vocabulary created, renamed, recoloured and deleted; tags set, added and detached;
        // the tagged verification deleted (i = 0), one tag deleted while carried (i = 1).
        await call('POST', '/v1/tags/', { token, json: { name: `colour ${i}`, color: '#00ff00' } });
        const tagged = await call('PUT', `/v1/verifications/${created.id}/tags`, { token, json: { tags: ['sea', 'Boat', `colour ${i}`] } });
        await call('POST', `/v1/verifications/${created.id}/tags`, { token, json: { tags: ['storm'] } });
        const boat = tagged.body.tags.find((tag: { name: string }) => tag.name === 'Boat');
        await call('DELETE', `/v1/verifications/${created.id}/tags/${boat.id}`, { token });
        const sea = tagged.body.tags.find((tag: { name: string }) => tag.name === 'sea');
        await call('PATCH', `/v1/tags/${sea.id}`, { token, json: { name: 'Ocean', color: '#0000ff' } });
        if (i === 1) await call('DELETE', `/v1/tags/${sea.id}`, { token });
        if (i === 0) await call('DELETE', `/v1/verifications/${created.id}`, { token });
        if (i === 1) await call('POST', '/v1/verifications/claim', { token, json: { anonymous_user_id: anonymous.anonymous_user_id } });
        // Pre-signed uploads (i = 2): one used by a verification, one left waiting for its expiry.
        if (i === 2) await uploadTwo(key.body.raw_key);
        // Web app sessions: one signed out and one left live (i = 1), one ended by the password change below (i = 0).
        if (i <= 1) {
          const browser = await signIn(t.url, adminEmail, password);
          if (i === 1) {
            await signIn(t.url, adminEmail, password);
            expect((await appRequest(t.url, 'POST', '/app/logout', { cookie: browser.cookie, form: { csrf_token: browser.csrf } })).status).toBe(303);
          }
        }
        // Last, as it ends this session: a password change (i = 0).
        if (i === 0) await call('PUT', '/v1/accounts/me/password', { token, json: { current_password: password, new_password: 'a changed password 1' } });
      }
      // The invitation mails are delivered in the background: their events must be in before the snapshots.
      await t.settled();
    });

    it('rebuilds every read model from the events into identical rows', async () => {
      const before = await snapshot(t);
      expect(before.accounts).toHaveLength(3);
      expect(before.users).toHaveLength(7);
      expect(before.users!.filter((row) => String(row).includes('"password_hash":null'))).toHaveLength(1);
      expect(before.users!.filter((row) => String(row).includes('"password_changed_at":"'))).toHaveLength(1);
      expect(before.app_sessions!.map((row) => JSON.parse(String(row)).end_reason).sort()).toEqual([null, 'password_changed', 'signed_out']);
      expect(before.comments).toHaveLength(3);
      expect(before.api_keys).toHaveLength(3);
      expect(before.verifications).toHaveLength(6);
      expect(before.verification_results!.length).toBeGreaterThan(10);
      expect(before.usage_meterings).toHaveLength(2);
      expect(before.shares).toHaveLength(1);
      expect(before.share_invites).toHaveLength(1);
      expect(before.share_views).toHaveLength(4);
      // Per account: colour i, sea (renamed Ocean; deleted for i = 1), Boat, storm.
      expect(before.tags).toHaveLength(11);
      // i = 1: colour 1 and storm (Ocean deleted); i = 2: Ocean, colour 2, storm; i = 0's verification is deleted.
      expect(before.verification_tags).toHaveLength(5);
      expect(before.verification_tag_sets).toHaveLength(3);
      expect(before.uploads!.map((row) => JSON.parse(String(row)).status).sort()).toEqual(['received', 'used']);
      await t.service.projections.rebuild();
      expect(await snapshot(t)).toEqual(before);
    });

    it('leaves the hash chain of every stream as it was: a rebuild reads events, never rewrites them (issue 25)', async () => {
      const { store } = t.service.deps;
      const chains = async () => {
        const events = await store.readAll({ after: 0n, limit: 100_000 });
        for (const stream of new Set(events.map((e) => e.stream))) {
          const ofStream = events.filter((e) => e.stream === stream);
          expect(verifyChain(ofStream), stream).toEqual({ ok: true, checked: ofStream.length });
        }
        return events.map((e) => [e.position, e.stream, e.revision, e.content_hash, e.hash, e.previous_hash]);
      };
      const before = await chains();
      expect(new Set(before.map(([, stream]) => stream)).size).toBeGreaterThan(20);
      await t.service.projections.rebuild();
      expect(await chains()).toEqual(before);
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
