/**
 * The requests workspace (issue 39 item 3) in real Chromium, at 390 px and 1280 px: a signed-in
 * user creates a request from /app/requests, copies its link, a provider submits a photo through
 * it, the submission appears on the request's page with its pill and names its request on its own
 * page, and the request is closed after a confirmation. Every page is checked with axe-core, for
 * console errors and for width; screenshots go to test-artifacts/webapp/.
 */
import fs from 'node:fs';
import path from 'node:path';
import { beforeAll, expect, it } from 'vitest';
import { chromiumGate, pageCheck, pageProblems, suiteChromium, viewports } from '../support/chromium.js';
import { databaseTargets } from '../support/databases.js';
import { registerAccount } from '../support/service.js';
import { serviceSuite } from '../support/suite.js';

const gate = chromiumGate('the requests workspace in a browser');
const artifacts = path.resolve(import.meta.dirname, '../../test-artifacts/webapp');
const PHOTO = path.resolve(import.meta.dirname, '../../../shared/fixtures/images/rs_sample1.webp');

gate.describe('the requests workspace in Chromium', () => {
  const { t, call } = serviceSuite(databaseTargets[0]!);
  const browser = suiteChromium();
  const checkPage = pageCheck(artifacts);

  beforeAll(() => {
    fs.mkdirSync(artifacts, { recursive: true });
  });

  for (const viewport of viewports) {
    it(`at ${viewport.width} px: create a request, copy its link, see its submission, close it`, async () => {
      const a = await registerAccount(call);
      const context = await browser.newContext({ viewport });
      const page = await context.newPage();
      const problems = pageProblems(page);
      try {
        await page.goto(`${t.url}/app/login`);
        await page.getByLabel('E-mail address').fill(a.email);
        await page.getByLabel('Password').fill(a.password);
        await page.getByRole('button', { name: 'Sign in' }).click();
        await page.waitForURL(`${t.url}/app/verifications`);
        await page.getByRole('link', { name: 'Requests' }).click();
        await page.waitForURL(`${t.url}/app/requests`);
        await checkPage(page, `requests-empty-${viewport.width}`);

        await page.getByLabel('What you ask for').fill('The original of the harbour fire');
        await page.getByLabel('Instructions (optional)').fill('With its RAW file, please.');
        await page.getByLabel('How many submissions it accepts').fill('2');
        await page.getByRole('button', { name: 'Create the request' }).click();
        await page.waitForURL(/\/app\/requests\/[0-9a-f-]{36}\?done=created$/);
        await checkPage(page, `request-created-${viewport.width}`);
        const link = await page.getByLabel('Link to the upload page').inputValue();
        expect(link).toMatch(/\/r\/[A-Za-z0-9_-]{43}$/);
        // The copy button is the page's script's: shown, and it copies (or selects where the clipboard is refused).
        await page.getByRole('button', { name: 'Copy link' }).click();
        await expect.poll(() => page.locator('#copy-status').textContent()).toMatch(/Link copied\.|Selected/);
        const requestPage = page.url().replace(/\?.*$/, '');

        // The provider submits through the link, without an account.
        const provider = await context.newPage();
        await provider.goto(link.replace(t.service.deps.config.PUBLIC_BASE_URL, t.url));
        await provider.setInputFiles('#image', PHOTO);
        await provider.click('button[type=submit]');
        await provider.waitForURL(/\/submissions\/[0-9a-f-]{36}/, { timeout: 60_000 });
        await provider.close();

        await page.goto(requestPage);
        await page.getByRole('heading', { name: '1 submission' }).waitFor();
        await checkPage(page, `request-submission-${viewport.width}`);
        await page.locator('ul.rows a.name').first().click();
        await page.waitForURL(/\/app\/verifications\/[0-9a-f-]{36}$/);
        await page.getByRole('heading', { name: 'Submitted to a request' }).waitFor();
        await page.getByRole('link', { name: 'The original of the harbour fire' }).click();
        await page.waitForURL(requestPage);

        await page.getByRole('link', { name: 'Close the request…' }).click();
        await page.waitForURL(`${requestPage}/close`);
        await checkPage(page, `request-close-${viewport.width}`);
        await page.getByRole('button', { name: 'Close the request' }).click();
        await page.waitForURL(`${requestPage}?done=closed`);
        expect(await page.getByRole('status').first().textContent()).toContain('The request was closed.');
        await page.getByRole('link', { name: 'All requests' }).click();
        await page.waitForURL(`${t.url}/app/requests`);
        expect(await page.locator('ul.rows.requests .pill').first().textContent()).toBe('Closed');
        await checkPage(page, `requests-list-${viewport.width}`);
        expect(problems).toEqual([]);
      } finally {
        await context.close();
      }
    }, 180_000);
  }
});
