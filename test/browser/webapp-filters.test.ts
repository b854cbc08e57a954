/**
 * The list's honest filters in Chromium (issue 39 item 2), at 390 and 1280 px: filter by the
 * level the pills show (an unsigned plain JPEG never under Flagged), a failed verification's grey
 * state in the list and on its report with the next step, each page checked with axe-core and
 * kept as a screenshot in test-artifacts/webapp-filters/ (gitignored) for a person to look at.
 */
import path from 'node:path';
import { beforeAll, expect, it } from 'vitest';
import { DEADLINE_REASON } from '../../workflows/verifications/workflow.js';
import { chromiumGate, pageCheck, suiteChromium } from '../support/chromium.js';
import { databaseTargets } from '../support/databases.js';
import { waitForTerminal } from '../support/poll.js';
import { seedPair } from '../support/seed-verifications.js';
import { uploadImage } from '../support/service.js';
import { serviceSuite } from '../support/suite.js';

const gate = chromiumGate('the web app’s level filter in a browser');
const artifacts = path.resolve(import.meta.dirname, '../../test-artifacts/webapp-filters');

gate.describe('the web app’s level filter and failed state in Chromium', () => {
  const { t, call, newAccount } = serviceSuite(databaseTargets[0]!);
  const owner = newAccount();
  const browser = suiteChromium();
  const ids: Record<string, string> = {};
  // Seeded pairs have no files to show: their pages are checked without waiting for images.
  const checkPage = pageCheck(artifacts);

  beforeAll(async () => {
    ids.plain = await uploadImage(t.url, owner.token, 'images/mei_nikon-d70.jpg', 'plain-camera-jpeg.jpg');
    ids.tampered = await uploadImage(t.url, owner.token, 'c2pa/pt_adobe-20220124-E-dat-CA.jpg', 'tampered-credentials.jpg');
    for (const id of [ids.plain, ids.tampered]) await waitForTerminal(call, owner.token, id!);
    ids.timedOut = await seedPair(t, owner.account.id, 'stadium-timed-out', { level: null, end: { reason: DEADLINE_REASON, fault: 'service' } });
    await t.settled();
  }, 300_000);

  for (const viewport of [{ width: 390, height: 844 }, { width: 1280, height: 800 }]) {
    it(`at ${viewport.width} px: filters by Flagged, shows a failed verification grey with what to do next`, async () => {
      const context = await browser.newContext({ viewport });
      const page = await context.newPage();
      try {
        await page.goto(`${t.url}/app/login`);
        await page.getByLabel('E-mail address').fill(owner.email);
        await page.getByLabel('Password').fill(owner.password);
        await page.getByRole('button', { name: 'Sign in' }).click();
        await page.waitForURL(`${t.url}/app/verifications`);
        const names = () => page.locator('ul.rows a.name').allTextContents();
        const failedRow = page.locator('ul.rows li', { hasText: 'stadium-timed-out' });
        expect(await failedRow.locator('.pill').textContent()).toBe('Not completed');
        expect(await failedRow.locator('.pill').getAttribute('class')).toBe('pill state-failed');
        expect(await failedRow.textContent()).toContain('This is not a problem with your files');
        await checkPage(page, `list-${viewport.width}`);

        // On a phone the filters are folded under their summary, none being set; a wide screen shows them.
        const fold = page.locator('details.filter-fold > summary', { hasText: 'Filter and sort' });
        expect(await page.getByLabel('Assurance level').isVisible()).toBe(viewport.width >= 768);
        expect(await fold.isVisible()).toBe(viewport.width < 768);
        if (viewport.width < 768) await fold.click();
        await page.getByLabel('Assurance level').selectOption({ label: 'Flagged' });
        await page.getByRole('button', { name: 'Filter' }).click();
        await page.waitForURL(/assurance_level=flagged/);
        expect(await names()).toEqual(['tampered-credentials.jpg']);
        // A filter set: open, showing what it is.
        expect(await page.getByLabel('Assurance level').isVisible()).toBe(true);
        await checkPage(page, `list-flagged-${viewport.width}`);

        await page.getByLabel('Assurance level').selectOption({ label: 'Unrated' });
        await page.getByRole('button', { name: 'Filter' }).click();
        await page.waitForURL(/assurance_level=unrated/);
        expect(await names()).toEqual(['plain-camera-jpeg.jpg']);

        await page.goto(`${t.url}/app/verifications/${ids.timedOut}`);
        const verdict = page.locator('section.verdict');
        expect(await verdict.locator('.level').textContent()).toBe('Not completed');
        expect(await verdict.textContent()).toContain('What to do next: Upload the same files again');
        await checkPage(page, `failed-report-${viewport.width}`);
      } finally {
        await context.close();
      }
    });
  }
});
