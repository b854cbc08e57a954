/**
 * The web app's verification page (issue 27, must-work 2) in real Chromium (Debian's, driven by
 * playwright-core), at 390 px and 1280 px: the 30D pair's whole report with every image loaded
 * from the app's own routes and the flicker working; an unfinished verification's page that
 * follows it to completion by itself (with JavaScript, the status route; without, the refresh);
 * the owner's history page, whose checks run in the browser and pass. axe-core on every page, no
 * console error (a CSP refusal is one), no horizontal scrolling. Screenshots in
 * test-artifacts/webapp/report-*.png (gitignored) for a person to look at.
 */
import fs from 'node:fs';
import path from 'node:path';
import { beforeAll, expect, it } from 'vitest';
import { chromiumGate, pageCheck, pageProblems, signInPage, suiteChromium, viewports } from '../support/chromium.js';
import { databaseTargets } from '../support/databases.js';
import { uploadImage } from '../support/service.js';
import { withStartsHeld } from '../support/held-start.js';
import { waitFor } from '../support/poll.js';
import { serviceSuite } from '../support/suite.js';

const gate = chromiumGate('the web app’s verification page in a browser');
const artifacts = path.resolve(import.meta.dirname, '../../test-artifacts/webapp');
const fixtures = path.resolve(import.meta.dirname, '../../../shared/fixtures');
const fixture = (name: string) => new Uint8Array(fs.readFileSync(path.join(fixtures, name)));

gate.describe('the web app’s verification page in Chromium', () => {
  // Anchors sealed one record at a time, so the history's checks have an anchor to check.
  const { t, call, newAccount } = serviceSuite(databaseTargets[0]!, { MAX_UPLOAD_BYTES: String(16 * 1024 * 1024), ANCHOR_BATCH_SIZE: '1' }, { workflowSweepMs: 200 });
  const owner = newAccount({ name: 'Harbour Picture Desk' });
  const browser = suiteChromium();
  let pair: string;
  let api: Record<string, any>;

  /** Accessible, no wider than the screen, every image loaded; then the screenshot. */
  const checkPage = pageCheck(artifacts, { images: true });

  /** A browser context signed in through the sign-in form, and a page that records every problem. */
  async function signedIn(options: { viewport: { width: number; height: number }; javaScriptEnabled?: boolean }) {
    const context = await browser.newContext(options);
    const page = await context.newPage();
    const problems = pageProblems(page, { requests: true });
    await signInPage(page, t.url, owner.email, owner.password);
    return { context, page, problems };
  }

  beforeAll(async () => {
    fs.mkdirSync(artifacts, { recursive: true });
    const form = new FormData();
    form.append('image', new Blob([fixture('pairs/canon_eos_30d_cr2/IMG_5952.camera-preview.jpg')]), 'IMG_5952.jpg');
    form.append('raw', new Blob([fixture('pairs/canon_eos_30d_cr2/IMG_5952.CR2')]), 'IMG_5952.CR2');
    const response = await fetch(`${t.url}/v1/verifications/`, { method: 'POST', headers: { authorization: `Bearer ${owner.token}` }, body: form });
    expect(response.status).toBe(201);
    pair = ((await response.json()) as { id: string }).id;
    api = await waitFor(async () => {
      const body = (await call('GET', `/v1/verifications/${pair}`, { token: owner.token })).body;
      return body.anchored_in?.length ? body : undefined;
    }, 'the pair to be completed and anchored');
    expect(api.status).toBe('completed');
  }, 400_000);

  for (const viewport of viewports) {
    it(`at ${viewport.width} px: a completed pair’s report with its images, then its history with the checks passing`, async () => {
      const { context, page, problems } = await signedIn({ viewport });
      try {
        await page.goto(`${t.url}/app/verifications/${pair}`);
        expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('IMG_5952.jpg');
        const label = { verified: 'Verified', provisional: 'Provisional', provenance: 'Provenance verified', unrated: 'Unrated', flagged: 'Flagged' }[api.assurance_level as string];
        expect(await page.locator('.verdict .level').textContent()).toBe(label);
        expect(await page.getByRole('heading', { name: 'Analyses' }).isVisible()).toBe(true);
        expect(await page.locator('ul.analyses > li').count()).toBe(api.results.length);
        const images = await checkPage(page, `report-pair-${viewport.width}`);
        // Every image of the report, loaded from the app's own routes with the session.
        const sources = images.map((i) => i.src);
        for (const kind of ['image', 'heatmap', 'raw_reference', ...(api.result === true ? ['badge'] : [])]) expect(sources).toContain(`/app/verifications/${pair}/files/${kind}`);
        // The flicker's script ran (its controls are shown) and works.
        const toggle = page.getByRole('button', { name: 'Show the RAW' });
        await toggle.click();
        expect(await toggle.getAttribute('aria-pressed')).toBe('true');
        expect(await page.locator('#flicker').getAttribute('data-showing')).toBe('raw');

        await page.getByRole('link', { name: 'See the full history and check it in your browser' }).click();
        await page.waitForURL(`${t.url}/app/verifications/${pair}/history`);
        await page.locator('#checks[data-outcome]').waitFor({ timeout: 60_000 });
        expect(await page.locator('#checks').getAttribute('data-outcome')).toBe('passed');
        expect(await page.locator('#check-status').textContent()).toMatch(/^All \d+ checks passed\.$/);
        expect(await page.locator('.checks li[data-ok="false"]').count()).toBe(0);
        await checkPage(page, `report-history-${viewport.width}`);
        await page.getByRole('link', { name: 'the verification' }).click();
        await page.waitForURL(`${t.url}/app/verifications/${pair}`);
        expect(problems).toEqual([]);
      } finally {
        await context.close();
      }
    }, 240_000);

    it(`at ${viewport.width} px: an unfinished verification’s page follows it to completion, with and without JavaScript`, async () => {
      for (const javaScriptEnabled of [true, false]) {
        const { context, page, problems } = await signedIn({ viewport, javaScriptEnabled });
        try {
          const name = `waiting-${javaScriptEnabled ? 'js' : 'nojs'}-${viewport.width}.webp`;
          const held = await withStartsHeld(t, () => uploadImage(t.url, owner.token, 'images/rs_sample1.webp', name));
          // With JavaScript the page follows its progress stream (server-sent events), not the status poll.
          const asked: string[] = [];
          page.on('request', (request) => asked.push(new URL(request.url()).pathname));
          await page.goto(`${t.url}/app/verifications/${held.id}`);
          expect(await page.locator('#progress').getAttribute('data-status')).toBe('queued');
          expect(await page.locator('#progress li[aria-current="step"]').textContent()).toBe('Files received');
          expect(await page.getByRole('status').first().textContent()).toContain('Queued');
          if (javaScriptEnabled) await checkPage(page, `report-progress-${viewport.width}`);
          await held.release();
          // No click, no navigation by the test: the page reloads itself once the result is in.
          await page.locator('.verdict .level[data-level]').waitFor({ timeout: 120_000 });
          expect(await page.locator('#progress').count()).toBe(0);
          expect(new URL(page.url()).pathname).toBe(`/app/verifications/${held.id}`);
          if (javaScriptEnabled) {
            expect(asked).toContain(`/app/verifications/${held.id}/progress`);
            expect(asked).not.toContain(`/app/verifications/${held.id}/status`);
          }
          // axe-core and the image checks run as page script: with JavaScript off, the screenshot only (the markup is the same).
          if (javaScriptEnabled) await checkPage(page, `report-progress-done-${viewport.width}`);
          else await page.screenshot({ path: path.join(artifacts, `report-progress-done-nojs-${viewport.width}.png`), fullPage: true });
          expect(problems).toEqual([]);
        } finally {
          await context.close();
        }
      }
    }, 300_000);
  }
});
