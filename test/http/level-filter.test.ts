import { beforeAll, describe, expect, it } from 'vitest';
import type { AssuranceLevel } from '../../src/analysis/types.js';
import { databaseTargets } from '../support/databases.js';
import { waitForTerminal } from '../support/poll.js';
import { seedPair } from '../support/seed-verifications.js';
import { uploadImage } from '../support/service.js';
import { serviceSuite } from '../support/suite.js';

/**
 * The list's `assurance_level` filter (issue 39 item 2): the level the grading recorded, one or
 * several, never the legacy `result`; an unsigned plain JPEG is never listed as flagged; a
 * hostile value is a 422 in the envelope; the OpenAPI document says what `result=false` includes.
 */
for (const target of databaseTargets) {
  describe(`the assurance_level filter on ${target.name}`, { timeout: 10 * 60_000 }, () => {
    const { t, call, newAccount } = serviceSuite(target);
    const owner = newAccount();
    const ids: Record<string, string> = {};

    const seed = async (name: string, level: AssuranceLevel | null, end: 'completed' | 'failed') => {
      ids[name] = await seedPair(t, owner.account.id, name, { level, end: end === 'completed' ? end : { reason: 'The service could not finish.', fault: 'service' } });
    };

    const listed = async (query: string) => {
      const res = await call('GET', `/v1/verifications/?size=100&${query}`, { token: owner.token });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      const body = res.body as { items: { id: string; assurance_level: string | null; status: string }[]; total: number };
      expect(body.total).toBe(body.items.length);
      return body;
    };
    const idsOf = async (query: string) => new Set((await listed(query)).items.map((item) => item.id));

    beforeAll(async () => {
      // Real image-only uploads, graded by the pipeline: an unsigned plain JPEG and a tampered one.
      ids.plain = await uploadImage(t.url, owner.token, 'images/mei_nikon-d70.jpg', 'plain.jpg');
      ids.tampered = await uploadImage(t.url, owner.token, 'c2pa/pt_adobe-20220124-E-dat-CA.jpg', 'tampered.jpg');
      for (const id of [ids.plain, ids.tampered]) await waitForTerminal(call, owner.token, id!);
      await seed('verified-pair', 'verified', 'completed');
      await seed('provisional-pair', 'provisional', 'completed');
      await seed('unrated-pair', 'unrated', 'completed');
      await seed('flagged-then-failed', 'flagged', 'failed');
      // Failed before grading: no level (a verification still running has none either).
      await seed('failed-ungraded', null, 'failed');
      await t.settled();
    });

    it('grades the fixtures as the filter is then checked against (an unsigned JPEG is unrated, a tampered one flagged)', async () => {
      const plain = (await call('GET', `/v1/verifications/${ids.plain}`, { token: owner.token })).body;
      const tampered = (await call('GET', `/v1/verifications/${ids.tampered}`, { token: owner.token })).body;
      expect([plain.status, plain.assurance_level, plain.verdict_reason, plain.result]).toEqual(['completed', 'unrated', 'unrated_no_evidence', false]);
      expect([tampered.status, tampered.assurance_level, tampered.verdict, tampered.result]).toEqual(['completed', 'flagged', 'modified_after_signing', false]);
    });

    it('never lists an unsigned plain JPEG under the flagged level, though result=false lists it beside the tampered one', async () => {
      const flagged = await idsOf('assurance_level=flagged');
      expect(flagged).toEqual(new Set([ids.tampered, ids['flagged-then-failed']]));
      expect(flagged.has(ids.plain!)).toBe(false);
      expect(await idsOf('assurance_level=unrated')).toEqual(new Set([ids.plain, ids['unrated-pair']]));
      // What the legacy filter's documentation says false includes: every unrated or flagged grade.
      expect(await idsOf('result=false')).toEqual(new Set([ids.plain, ids.tampered, ids['unrated-pair'], ids['flagged-then-failed']]));
      expect(await idsOf('result=true')).toEqual(new Set([ids['verified-pair'], ids['provisional-pair']]));
    });

    it('takes several levels, combines with status, and matches nothing not graded yet', async () => {
      expect(await idsOf('assurance_level=verified,provisional')).toEqual(new Set([ids['verified-pair'], ids['provisional-pair']]));
      expect(await idsOf('assurance_level=%20verified%20,verified,')).toEqual(new Set([ids['verified-pair']]));
      expect(await idsOf('assurance_level=flagged&status=completed')).toEqual(new Set([ids.tampered]));
      expect(await idsOf('assurance_level=provenance')).toEqual(new Set());
      const every = await idsOf('assurance_level=verified,provisional,provenance,unrated,flagged');
      expect(every.has(ids['failed-ungraded']!)).toBe(false);
      expect(every.size).toBe(6);
      // An empty value filters nothing, as the other filters' do.
      expect((await listed('assurance_level=')).total).toBe(7);
      // Items show the level they were filtered by.
      for (const item of (await listed('assurance_level=unrated,flagged')).items) expect(['unrated', 'flagged']).toContain(item.assurance_level);
    });

    it('refuses a hostile or unknown level with 422 VALIDATION_ERROR naming the valid levels', async () => {
      for (const value of ["flagged' OR '1'='1", 'Flagged', 'verified;drop table verifications', 'not_authentic', 'flagged\u200b']) {
        const res = await call('GET', `/v1/verifications/?assurance_level=${encodeURIComponent(value)}`, { token: owner.token });
        expect(res.status, value).toBe(422);
        expect(res.body.detail.error_code, value).toBe('VALIDATION_ERROR');
        expect(res.body.detail.suggestion).toBe('Use a comma-separated subset of: verified, provisional, provenance, unrated, flagged.');
      }
      // Longer than any subset could be, or not one value: the schema's 422.
      expect((await call('GET', `/v1/verifications/?assurance_level=${'flagged,'.repeat(40)}`, { token: owner.token })).status).toBe(422);
      expect((await call('GET', '/v1/verifications/?assurance_level=flagged&assurance_level=unrated', { token: owner.token })).status).toBe(422);
    });

    it('documents the filter and what result=false includes in /openapi.json', async () => {
      const doc = (await call('GET', '/openapi.json')).body;
      const parameters = doc.paths['/v1/verifications/'].get.parameters as { name: string; description?: string }[];
      const level = parameters.find((p) => p.name === 'assurance_level');
      expect(level?.description).toContain('verified, provisional, provenance, unrated, flagged');
      const result = parameters.find((p) => p.name === 'result');
      expect(result?.description).toContain('unsigned plain images');
      expect(result?.description).toContain('assurance_level=flagged');
    });
  });
}
