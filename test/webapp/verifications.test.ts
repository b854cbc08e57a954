import { describe, expect, it } from 'vitest';
import { databaseTargets } from '../support/databases.js';
import { registerAccount, uploadImage } from '../support/service.js';
import { serviceSuite } from '../support/suite.js';
import { appRequest, signIn } from '../support/webapp.js';

/** The web app's verifications list and page (issue 27, must-work 2): the API's list use case, filters and paging, and the account boundary. */
for (const target of databaseTargets) {
  describe(`web app verifications on ${target.name}`, () => {
    const { t, call } = serviceSuite(target);

    /** The verification links of a list page, in order. */
    const linked = (page: string) => [...page.matchAll(/href="\/app\/verifications\/([0-9a-f-]{36})"/g)].map((m) => m[1]);

    it('lists the account’s verifications newest first with the search, status, assurance level and tags filters, and pages', async () => {
      const a = await registerAccount(call);
      // A new account's list points to the upload page rather than to filters it has not set.
      const before = await signIn(t.url, a.email, a.password);
      const empty = (await appRequest(t.url, 'GET', '/app/verifications', { cookie: before.cookie })).text;
      expect(empty).toContain('None yet. <a href="/app/upload">Upload a photo</a>');
      expect(empty).not.toContain('Nothing matches');
      const harbour = await uploadImage(t.url, a.token, 'images/rs_sample1.webp', 'harbour.webp');
      const market = await uploadImage(t.url, a.token, 'images/rs_sample1.webp', 'market.webp');
      const tower = await uploadImage(t.url, a.token, 'images/rs_sample1.webp', 'tower.webp');
      expect((await call('POST', `/v1/verifications/${market}/tags`, { token: a.token, json: { tags: ['Contest'] } })).status).toBe(200);
      const { cookie } = await signIn(t.url, a.email, a.password);
      const list = (query = '') => appRequest(t.url, 'GET', `/app/verifications${query}`, { cookie });

      const all = await list();
      expect(all.status).toBe(200);
      // The same order as the API's list, newest first.
      const api = await call('GET', '/v1/verifications?sort_by=created_at&sort_order=desc', { token: a.token });
      expect(linked(all.text)).toEqual(api.body.items.map((v: { id: string }) => v.id));
      expect(new Set(linked(all.text))).toEqual(new Set([harbour, market, tower]));
      expect(all.text).toContain('1–3 of 3');

      expect(linked((await list('?search=harbour')).text)).toEqual([harbour]);
      expect(linked((await list('?tags=contest')).text)).toEqual([market]);
      expect(linked((await list('?search=contest')).text)).toEqual([market]);
      // Empty fields (the form's "Any") filter nothing.
      expect(linked((await list('?search=&status=&assurance_level=&tags=')).text)).toHaveLength(3);
      const failed = await list('?status=failed');
      expect(linked(failed.text)).toEqual([]);
      expect(failed.text).toContain('Nothing matches. <a href="/app/verifications">Clear the filters</a>');
      // The level filter is the API's: whatever the API answers for assurance_level=unrated (none failed here), the page lists.
      const unrated = await call('GET', '/v1/verifications?assurance_level=unrated', { token: a.token });
      expect(linked((await list('?assurance_level=unrated')).text)).toEqual(unrated.body.items.map((v: { id: string }) => v.id));
      // A filter the API refuses is the API's error (400 VALIDATION_ERROR), as a page.
      const refused = await list('?status=lost');
      expect(refused.status).toBe(400);
      expect(refused.text).toContain('Invalid status filter');
      // Paging keeps the filters: 20 a page, so offset=2 shows the oldest alone, with a link back to the newer ones.
      const second = await list('?offset=2&search=.webp');
      expect(linked(second.text)).toEqual([linked(all.text)[2]]);
      expect(second.text).toContain('3–3 of 3');
      expect(second.text).toContain('href="/app/verifications?search=.webp" rel="prev"');
    });

    it('opens a verification of the account, and answers 404 for another account’s', async () => {
      const a = await registerAccount(call);
      const b = await registerAccount(call);
      const mine = await uploadImage(t.url, a.token, 'images/rs_sample1.webp', 'pier.webp');
      const theirs = await uploadImage(t.url, b.token, 'images/rs_sample1.webp', 'secret-of-b.webp');
      const { cookie } = await signIn(t.url, a.email, a.password);
      const own = await appRequest(t.url, 'GET', `/app/verifications/${mine}`, { cookie });
      expect(own.status).toBe(200);
      expect(own.text).toContain('<h1>pier.webp</h1>');
      expect(own.text).toContain('Assurance level');
      const foreign = await appRequest(t.url, 'GET', `/app/verifications/${theirs}`, { cookie });
      expect(foreign.status).toBe(404);
      expect(foreign.text).not.toContain('secret-of-b');
      expect(foreign.text).toContain('This page does not exist');
      // Signed out, the page sends the browser to sign in and shows nothing.
      const signedOut = await appRequest(t.url, 'GET', `/app/verifications/${mine}`);
      expect([signedOut.status, signedOut.location, signedOut.text]).toEqual([303, '/app/login', '']);
    });
  });
}
