import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { databaseTargets } from '../support/databases.js';
import { keylessVerify } from '../support/mcp.js';
import { registerAccount, uploadImage } from '../support/service.js';
import { serviceSuite } from '../support/suite.js';

/**
 * GET /v1/verifications/{id} reads the row and its results in one query (D-047); it must
 * answer exactly what the list answers for the same verification, and keep ownership hidden.
 */
const fixture = (name: string) => new Uint8Array(fs.readFileSync(path.resolve(import.meta.dirname, '../../../shared/fixtures', name)));

for (const target of databaseTargets) {
  describe(`verification read path on ${target.name}`, () => {
    const { t, call } = serviceSuite(target);

    const upload = (token: string, file: string) => uploadImage(t.url, token, file);

    it('answers the same verification, results included, as the list does', async () => {
      const { token } = await registerAccount(call);
      const id = await upload(token, 'c2pa/jsl_gen-fill.jpg');
      const empty = await upload(token, 'images/rs_sample1.webp');
      // Fields other features add (core/module/extensions.ts) come in the same read: tags and comments.
      expect((await call('PUT', `/v1/verifications/${id}/tags`, { token, json: { tags: ['Storm', 'harbour'] } })).status).toBe(200);
      for (const body of ['first look', 'second look']) expect((await call('POST', `/v1/verifications/${id}/comments`, { token, json: { body } })).status).toBe(201);
      await t.settled();
      const one = await call('GET', `/v1/verifications/${id}`, { token });
      expect(one.body.tags.map((tag: { name: string }) => tag.name)).toEqual(['harbour', 'Storm']);
      expect(one.body.comment_count).toBe(2);
      expect(one.status).toBe(200);
      expect(one.body.status).toBe('completed');
      expect(one.body.results.length).toBeGreaterThan(0);
      const listed = await call('GET', '/v1/verifications/?size=10', { token });
      const item = listed.body.items.find((v: { id: string }) => v.id === id);
      // The thumbnail URL is signed at each answer (its expiry may tick over between the two).
      const withoutUrl = ({ image_thumbnail_url: _url, ...rest }: Record<string, unknown>) => rest;
      expect(withoutUrl(one.body)).toEqual(withoutUrl(item));
      expect(one.body.image_thumbnail_url).toMatch(/^http/);
      const other = await call('GET', `/v1/verifications/${empty}`, { token });
      expect(other.body.id).toBe(empty);
      expect([other.body.tags, other.body.comment_count]).toEqual([[], 0]);
      expect(withoutUrl(other.body)).toEqual(withoutUrl(listed.body.items.find((v: { id: string }) => v.id === empty)));
    });

    it('counts the list total through uploads, a deletion and a claim, and finds by name, id and SHA-256', async () => {
      const { token } = await registerAccount(call);
      const ids = [await upload(token, 'images/rs_sample1.webp'), await upload(token, 'c2pa/jsl_gen-fill.jpg'), await upload(token, 'images/rs_sample1.webp')];
      // Keyless verifications come through MCP (REST requires credentials).
      const anon = (await keylessVerify(t.url, { image: Buffer.from(fixture('images/rs_sample1.webp')), imageName: 'anon.webp' })).output;
      await t.settled();
      const total = async (query = '') => (await call('GET', `/v1/verifications/?size=1${query}`, { token })).body.total;
      expect(await total()).toBe(3);
      expect((await call('DELETE', `/v1/verifications/${ids[0]}`, { token })).status).toBe(200);
      expect(await total()).toBe(2);
      expect((await call('POST', '/v1/verifications/claim', { token, json: { anonymous_user_id: anon.anonymous_user_id } })).status).toBe(200);
      expect(await total()).toBe(3);
      // Filtered totals are counted from the rows.
      expect(await total('&status=completed')).toBe(3);
      expect(await total('&search=gen-fill')).toBe(1);
      expect(await total('&search=GEN-FILL')).toBe(1);
      expect(await total('&search=sample1')).toBe(1); // the other was deleted
      expect(await total('&search=anon')).toBe(1); // claimed
      expect(await total(`&search=${ids[1]!.toUpperCase()}`)).toBe(1);
      const one = await call('GET', `/v1/verifications/${ids[1]}`, { token });
      expect(await total(`&search=${encodeURIComponent(one.body.image_photo_hash)}`)).toBe(1);
      expect(await total(`&search=${one.body.image_photo_hash.slice('sha256:'.length)}`)).toBe(1);
      expect(await total('&search=50%25')).toBe(0);
      // A filtered page and its total come from one statement (D-057): each page of a search
      // holds the next match, and a page past the last is empty but keeps the total.
      const page = async (query: string) => (await call('GET', `/v1/verifications/?size=1${query}`, { token })).body;
      const [first, second, past] = [await page('&search=.webp'), await page('&search=.webp&offset=1'), await page('&search=.webp&offset=2')];
      expect([first.total, second.total, past.total]).toEqual([2, 2, 2]);
      expect(new Set([first.items[0].name, second.items[0].name])).toEqual(new Set(['rs_sample1.webp', 'anon.webp']));
      expect(past.items).toEqual([]);
      const beyond = await page('&status=completed&offset=7');
      expect([beyond.items, beyond.total, beyond.total_pages]).toEqual([[], 3, 3]);
    });

    it('hides another account’s verification and an unknown one behind the same 404', async () => {
      const owner = await registerAccount(call);
      const id = await upload(owner.token, 'images/rs_sample1.webp');
      const stranger = await registerAccount(call);
      for (const route of [`/v1/verifications/${id}`, `/v1/verifications/${crypto.randomUUID()}`]) {
        const res = await call('GET', route, { token: stranger.token });
        expect(res.status).toBe(404);
        expect(res.body.detail.error_code).toBe('VERIFICATION_NOT_FOUND');
      }
    });
  });
}
