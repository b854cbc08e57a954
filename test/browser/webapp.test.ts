/**
 * The web app (issue 27) in real Chromium (Debian's, driven by playwright-core): sign in, see
 * the list, filter it, open a verification, sign out, at 390 px and 1280 px, each page checked
 * with axe-core and for console errors (a CSP refusal is one). Screenshots are kept in
 * test-artifacts/webapp/ (gitignored) for a person to look at.
 */
import fs from 'node:fs';
import path from 'node:path';
import { beforeAll, expect, it } from 'vitest';
import { databaseTargets } from '../support/databases.js';
import { chromiumGate, pageCheck, pageProblems, suiteChromium, viewports } from '../support/chromium.js';
import { uploadImage } from '../support/service.js';
import { serviceSuite } from '../support/suite.js';

const gate = chromiumGate('the web app in a browser');
const artifacts = path.resolve(import.meta.dirname, '../../test-artifacts/webapp');

gate.describe('the web app in Chromium', () => {
  const { t, call, newAccount } = serviceSuite(databaseTargets[0]!);
  const owner = newAccount({ name: 'Harbour Picture Desk' });
  const other = newAccount();
  const browser = suiteChromium();
  const ids: Record<string, string> = {};

  /** What a page must be at every step: accessible, no wider than the screen, every image loaded. */
  const checkPage = pageCheck(artifacts, { images: true });

  beforeAll(async () => {
    fs.mkdirSync(artifacts, { recursive: true });
    ids.harbour = await uploadImage(t.url, owner.token, 'images/rs_sample1.webp', 'harbour-at-dawn.webp');
    ids.camera = await uploadImage(t.url, owner.token, 'images/mei_canon-eos450d.jpg', 'contest-entry-42.jpg');
    ids.foreign = await uploadImage(t.url, other.token, 'images/rs_sample1.webp', 'another-accounts-photo.webp');
    expect((await call('POST', `/v1/verifications/${ids.camera}/tags`, { token: owner.token, json: { tags: ['Contest', 'Sports'] } })).status).toBe(200);
    await t.settled();
  }, 300_000);

  for (const viewport of viewports) {
    it(`at ${viewport.width} px: sign in, the list and its filters, a verification, sign out`, async () => {
      const context = await browser.newContext({ viewport });
      const page = await context.newPage();
      const problems = pageProblems(page);
      try {
        // Signed out, the app sends the browser to sign in.
        await page.goto(`${t.url}/app/verifications`);
        expect(new URL(page.url()).pathname).toBe('/app/login');
        await checkPage(page, `login-${viewport.width}`);

        await page.getByLabel('E-mail address').fill(owner.email);
        await page.getByLabel('Password').fill('not the password');
        await page.getByRole('button', { name: 'Sign in' }).click();
        await expect.poll(() => page.getByRole('alert').textContent()).toContain('Wrong e-mail address or password.');
        await checkPage(page, `login-wrong-${viewport.width}`);
        // The form again with its 401, which Chromium reports on the console: the only message expected.
        expect(problems).toEqual(['console error: Failed to load resource: the server responded with a status of 401 (Unauthorized)']);
        problems.length = 0;

        await page.getByLabel('Password').fill(owner.password);
        await page.getByRole('button', { name: 'Sign in' }).click();
        await page.waitForURL(`${t.url}/app/verifications`);
        const header = await page.locator('header.site').textContent();
        expect(header).toContain('Harbour Picture Desk');
        expect(header).toContain(owner.user.name);
        const names = () => page.locator('ul.rows a.name').allTextContents();
        expect((await names()).sort()).toEqual(['contest-entry-42.jpg', 'harbour-at-dawn.webp']);
        expect(await page.content()).not.toContain('another-accounts-photo');
        await checkPage(page, `list-${viewport.width}`);

        // On a phone the filters are folded (test/browser/webapp-filters.test.ts): open them first.
        if (viewport.width < 768) await page.locator('details.filter-fold > summary', { hasText: 'Filter and sort' }).click();
        await page.getByLabel('Tags').fill('sports');
        await page.getByRole('button', { name: 'Filter' }).click();
        await page.waitForURL(/tags=sports/);
        expect(await names()).toEqual(['contest-entry-42.jpg']);
        await checkPage(page, `list-filtered-${viewport.width}`);

        await page.getByRole('link', { name: 'contest-entry-42.jpg' }).click();
        await page.waitForURL(`${t.url}/app/verifications/${ids.camera}`);
        expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('contest-entry-42.jpg');
        const api = (await call('GET', `/v1/verifications/${ids.camera}`, { token: owner.token })).body;
        expect(api.status).toBe('completed');
        // The level the API gives, in the report page's words.
        expect(await page.locator('.verdict .level').textContent()).toBe({ verified: 'Verified', provisional: 'Provisional', provenance: 'Provenance verified', unrated: 'Unrated', flagged: 'Flagged' }[api.assurance_level as string]);
        expect(await page.locator('[data-hash="image"]').textContent()).toBe(api.image_photo_hash.replace('sha256:', ''));
        await checkPage(page, `verification-${viewport.width}`);

        await page.getByRole('button', { name: 'Sign out' }).click();
        await page.waitForURL(`${t.url}/app/login?notice=signed-out`);
        await page.goto(`${t.url}/app/verifications/${ids.camera}`);
        expect(new URL(page.url()).pathname).toBe('/app/login');
        expect(problems).toEqual([]);
      } finally {
        await context.close();
      }
    }, 180_000);
  }
});
