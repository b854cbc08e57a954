import crypto from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { systemContext } from '../../src/core/es/commands.js';
import { appendFacts } from '../../src/core/es/decider.js';
import { verificationTagsStream } from '../../src/features/tags/decider.js';
import { verificationTagEvents } from '../../src/features/tags/events.js';
import { verificationStream } from '../../src/features/verifications/decider.js';
import { verificationEvents } from '../../src/features/verifications/events.js';
import { databaseTargets } from '../support/databases.js';
import { registerAccount } from '../support/service.js';
import { serviceSuite } from '../support/suite.js';

/** Enough verifications that a filter answered without its indexes, or paged wrongly, shows. */
const COUNT = 2000;
const COLOURS = ['red', 'green', 'blue', 'cyan', 'magenta', 'yellow'] as const;
const START = Date.parse('2026-01-01T00:00:00.000Z');

interface Seeded {
  id: string;
  createdAt: number;
  status: 'completed' | 'failed';
  tags: Set<string>;
}

/** Which colours verification i carries: the bits of i (every combination of the six occurs). */
const coloursOf = (i: number): string[] => COLOURS.filter((_, bit) => (i >> bit) & 1);

for (const target of databaseTargets) {
  describe(`tag filters on ${COUNT} verifications on ${target.name}`, () => {
    const { t, call } = serviceSuite(target);
    let token: string;
    let otherToken: string;
    const seeded: Seeded[] = [];
    const tagIds = new Map<string, string>();

    /** The expected page: the seeded verifications the predicate admits, sorted as the list sorts. */
    const expectedPage = (admit: (s: Seeded) => boolean, page: { offset: number; size: number; order?: 'asc' | 'desc' }) => {
      const all = seeded.filter(admit).sort((a, b) => (page.order === 'asc' ? a.createdAt - b.createdAt : b.createdAt - a.createdAt));
      return { total: all.length, ids: all.slice(page.offset, page.offset + page.size).map((s) => s.id) };
    };
    const listed = async (query: string, as = token) => {
      const res = await call('GET', `/v1/verifications/?${query}`, { token: as });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return res.body as { items: { id: string; tags: { name: string }[] }[]; total: number; total_pages: number; size: number };
    };
    const has = (...names: string[]) => (s: Seeded) => names.every((n) => s.tags.has(n));
    const hasAny = (...names: string[]) => (s: Seeded) => names.some((n) => s.tags.has(n));

    beforeAll(async () => {
      const owner = await registerAccount(call);
      token = owner.token;
      otherToken = (await registerAccount(call)).token;
      for (const name of COLOURS) {
        const created = await call('POST', '/v1/tags/', { token, json: { name } });
        expect(created.status).toBe(201);
        tagIds.set(name, created.body.id);
      }
      // Seeded through the event log (as processing would record them), not through uploads: the
      // read models are built from these events exactly as from any others.
      const { store } = t.service.deps;
      const context = () => systemContext(t.service.deps, { actor: { type: 'system', id: 'test-seed' }, correlationId: crypto.randomUUID(), accountId: owner.account.id });
      for (let i = 0; i < COUNT; i++) {
        const id = crypto.randomUUID();
        const createdAt = START + i * 1000;
        const status = i % 3 === 0 ? 'failed' : 'completed';
        const at = new Date(createdAt).toISOString();
        const file = { blob_key: `verifications/${id}/image.webp`, filename: `photo-${i}.webp`, format: 'WEBP', content_type: 'image/webp', size: 1, sha256: 'a'.repeat(64), sha512: 'b'.repeat(128) };
        await appendFacts(store, verificationStream(id), verificationEvents, [
          {
            type: 'VerificationQueued',
            data: { verification_id: id, account_id: owner.account.id, mode: 'image_only', name: file.filename, short_code: 'L-SEEDED', pipeline_build: 'seed', image: file, raw: null, queued_at: at, anonymous: false, capture: null, billing: { counted: false, overage: false, price_eur: 0 } },
          },
          status === 'failed' ? { type: 'VerificationFailed', data: { failure_reason: 'seeded', fault: 'input', failed_at: at } } : { type: 'VerificationCompleted', data: { completed_at: at } },
        ], context());
        const colours = coloursOf(i);
        if (colours.length > 0) {
          const refs = colours.map((name) => ({ id: tagIds.get(name)!, name }));
          await appendFacts(store, verificationTagsStream(id), verificationTagEvents, [
            { type: 'VerificationTagsChanged', data: { tag_ids: refs.map((r) => r.id), added: refs, removed: [], changed_at: at } },
          ], context());
        }
        seeded.push({ id, createdAt, status, tags: new Set(colours) });
        // Seeding keeps PGlite (and so this process) busy: a request now and then keeps the
        // client's pooled connection from outliving the server's keep-alive unnoticed (ECONNRESET).
        if (i % 200 === 199) expect((await call('GET', '/v1/tags/', { token })).status).toBe(200);
      }
      await t.settled();
    }, 600_000);

    it('counts every tag across the whole account', async () => {
      const tags = (await call('GET', '/v1/tags/', { token })).body.items as { name: string; verification_count: number }[];
      expect(tags.map((tag) => tag.name)).toEqual([...COLOURS].sort());
      for (const tag of tags) expect(tag.verification_count, tag.name).toBe(seeded.filter(has(tag.name)).length);
    });

    it('pages through one tag, newest first, with the total and the tags of each item', async () => {
      const expected = expectedPage(has('red'), { offset: 40, size: 100 });
      const page = await listed('tags=RED&offset=40&size=100');
      expect(page.total).toBe(expected.total);
      expect(page.total_pages).toBe(Math.ceil(expected.total / 100));
      expect(page.items.map((item) => item.id)).toEqual(expected.ids);
      const byId = new Map(seeded.map((s) => [s.id, s]));
      for (const item of page.items) expect(item.tags.map((tag) => tag.name)).toEqual([...byId.get(item.id)!.tags].sort());
    });

    it('matches all of several tags (the default) and any of them', async () => {
      const all = expectedPage(has('red', 'blue', 'magenta'), { offset: 100, size: 50 });
      const allPage = await listed('tags=red,Blue,MAGENTA&offset=100&size=50');
      expect(allPage.total).toBe(all.total);
      expect(allPage.items.map((item) => item.id)).toEqual(all.ids);
      expect((await listed('tags=red,Blue,MAGENTA&tag_match=all&size=1')).total).toBe(all.total);

      const any = expectedPage(hasAny('cyan', 'yellow'), { offset: 700, size: 100, order: 'asc' });
      const anyPage = await listed('tags=cyan,yellow&tag_match=any&sort_order=asc&offset=700&size=100');
      expect(anyPage.total).toBe(any.total);
      expect(anyPage.items.map((item) => item.id)).toEqual(any.ids);
    });

    it('combines the tags filter with the status filter and search by tag name', async () => {
      const failedGreen = expectedPage((s) => s.status === 'failed' && s.tags.has('green'), { offset: 0, size: 100 });
      const page = await listed('tags=green&status=failed&size=100');
      expect(page.total).toBe(failedGreen.total);
      expect(page.items.map((item) => item.id)).toEqual(failedGreen.ids);
      const searched = expectedPage(has('magenta'), { offset: 300, size: 20 });
      const found = await listed('search=genta&offset=300');
      expect(found.total).toBe(searched.total);
      expect(found.items.map((item) => item.id)).toEqual(searched.ids);
      // No verification of the other account, and none of these for it.
      expect((await listed('tags=red', otherToken)).total).toBe(0);
    });

    it('follows a rename and a delete of a tag carried by a thousand verifications', async () => {
      const yellow = tagIds.get('yellow')!;
      expect((await call('PATCH', `/v1/tags/${yellow}`, { token, json: { name: 'Gold' } })).status).toBe(200);
      const gold = expectedPage(has('yellow'), { offset: 500, size: 100 });
      const page = await listed('tags=gold&offset=500&size=100');
      expect(page.total).toBe(gold.total);
      expect(page.items.map((item) => item.id)).toEqual(gold.ids);
      expect((await listed('tags=yellow')).total).toBe(0);

      expect((await call('DELETE', `/v1/tags/${tagIds.get('cyan')}`, { token })).status).toBe(204);
      expect((await listed('tags=cyan')).total).toBe(0);
      const withoutCyan = expectedPage(hasAny('cyan', 'blue'), { offset: 0, size: 100 });
      const blueOnly = expectedPage(has('blue'), { offset: 0, size: 100 });
      const after = await listed('tags=cyan,blue&tag_match=any&size=100');
      expect(withoutCyan.total).toBeGreaterThan(blueOnly.total);
      expect(after.total).toBe(blueOnly.total);
      expect(after.items.map((item) => item.id)).toEqual(blueOnly.ids);
      expect((await listed('size=1')).total).toBe(COUNT);
    });
  });
}
