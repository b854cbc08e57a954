import { describe, expect, it } from 'vitest';
import { databaseTargets } from '../support/databases.js';
import { addMember } from '../support/members.js';
import { registerAccount } from '../support/service.js';
import { serviceSuite, type Call } from '../support/suite.js';

/**
 * The audit door asks each stream's owning feature's read rule (issue 35, item 3): a member who
 * cannot see the admin's API keys on /v1/apikeys/ cannot see their history on /v1/audit/streams
 * either: not listed, not counted, and 404 STREAM_NOT_FOUND exactly as an unknown stream.
 */

type Credential = { token: string } | { apiKey: string };

/** Every stream the caller is listed, page by page (size 1: totals must agree on every page), and the totals the pages gave. */
async function listAll(call: Call, who: Credential): Promise<{ streams: string[]; totals: number[] }> {
  const streams: string[] = [];
  const totals: number[] = [];
  for (let offset = 0; offset < 500; offset += 1) {
    const page = await call('GET', `/v1/audit/streams?offset=${offset}&size=1`, who);
    expect(page.status).toBe(200);
    totals.push(page.body.total as number);
    if (page.body.items.length === 0) break;
    streams.push(...page.body.items.map((s: { stream: string }) => s.stream));
  }
  return { streams, totals };
}

for (const target of databaseTargets) {
  describe(`the audit door's read rules on ${target.name}`, () => {
    const { call } = serviceSuite(target);

    it("a member reads their own API keys' history, not the admin's: not listed, not counted, 404 like an unknown stream; the admin reads both; another account neither", async () => {
      const admin = await registerAccount(call);
      const adminKey = await call('POST', '/v1/apikeys/', { token: admin.token, json: { account_id: admin.account.id, description: 'the admin key' } });
      expect(adminKey.status).toBe(201);
      // Used: its history now holds an ApiKeyUsed too.
      expect((await call('GET', '/v1/verifications/', { apiKey: adminKey.body.raw_key })).status).toBe(200);
      const member = await addMember(call, admin);
      const memberKey = await call('POST', '/v1/apikeys/', { token: member.token, json: { account_id: admin.account.id, description: 'the member key' } });
      expect(memberKey.status).toBe(201);
      const other = await registerAccount(call);
      const adminStream = `apikey-${adminKey.body.id}`;
      const memberStream = `apikey-${memberKey.body.id}`;

      // The feature's own rule, as the key list applies it.
      const listedKeys = (await call('GET', '/v1/apikeys/', { token: member.token })).body.map((k: { id: string }) => k.id);
      expect(listedKeys).toEqual([memberKey.body.id]);

      const unknown = await call('GET', '/v1/audit/streams/apikey-00000000-0000-4000-8000-000000000000', { token: member.token });
      expect([unknown.status, unknown.body.detail.error_code]).toEqual([404, 'STREAM_NOT_FOUND']);
      for (const who of [{ token: member.token }, { apiKey: memberKey.body.raw_key as string }]) {
        const hidden = await call('GET', `/v1/audit/streams/${adminStream}`, who);
        expect(hidden.status).toBe(404);
        expect(hidden.body).toEqual(unknown.body);
        const own = await call('GET', `/v1/audit/streams/${memberStream}`, who);
        expect(own.status).toBe(200);
        expect(own.body.events.map((e: { type: string }) => e.type)).toContain('ApiKeyCreated');
      }

      const byAdmin = await call('GET', `/v1/audit/streams/${adminStream}`, { token: admin.token });
      expect(byAdmin.status).toBe(200);
      expect(byAdmin.body.events.map((e: { type: string }) => e.type)).toEqual(['ApiKeyCreated', 'ApiKeyUsed']);
      expect((await call('GET', `/v1/audit/streams/${memberStream}`, { token: admin.token })).status).toBe(200);
      for (const stream of [adminStream, memberStream]) {
        const foreign = await call('GET', `/v1/audit/streams/${stream}`, { token: other.token });
        expect([foreign.status, foreign.body]).toEqual([404, unknown.body]);
      }

      // The lists: the admin's shows both keys' streams; the member's the same streams less the admin's keys', and its totals count only what it shows.
      const ofAdmin = await listAll(call, { token: admin.token });
      const ofMember = await listAll(call, { token: member.token });
      expect(ofAdmin.streams).toEqual(expect.arrayContaining([adminStream, memberStream, `account-${admin.account.id}`]));
      expect(ofMember.streams).toContain(memberStream);
      expect(ofMember.streams).not.toContain(adminStream);
      expect([...ofMember.streams].sort()).toEqual(ofAdmin.streams.filter((s) => s !== adminStream).sort());
      expect(new Set(ofMember.totals)).toEqual(new Set([ofMember.streams.length]));
      expect(new Set(ofAdmin.totals)).toEqual(new Set([ofAdmin.streams.length]));
      const ofOther = await listAll(call, { token: other.token });
      expect(ofOther.streams.filter((s) => s === adminStream || s === memberStream || s.includes(admin.account.id))).toEqual([]);
    });
  });
}
