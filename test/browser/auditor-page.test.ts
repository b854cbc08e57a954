/**
 * The auditor's page (issue 25, must-work 4) in real Chromium: two verifications anchored by the
 * anchors feature's workflow (sealed together), shared by link, their history opened at
 * /shared/<token>/history at 390 px and 1280 px; the offline verifier's checks run in the
 * browser (the compiled audit-verify.js served by the service) and all pass; axe-core finds no
 * serious or critical violation. A removed share gives the report's 404 page. Then an event is
 * changed in the database and the page shows the broken link. Screenshots in
 * test-artifacts/auditor-page/ (gitignored) for a person to look at.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { beforeAll, expect, it } from 'vitest';
import { verificationStream } from '../../src/features/verifications/events.js';
import { chromiumGate, pageProblems, seriousViolations, suiteChromium } from '../support/chromium.js';
import { databaseTargets } from '../support/databases.js';
import { waitFor } from '../support/poll.js';
import { uploadImage } from '../support/service.js';
import { serviceSuite } from '../support/suite.js';

const gate = chromiumGate('the auditor page in a browser');
const artifacts = path.resolve(import.meta.dirname, '../../test-artifacts/auditor-page');
const viewports = [
  { name: 'phone', width: 390, height: 844 },
  { name: 'desktop', width: 1280, height: 900 },
];

gate.describe('the auditor’s page in Chromium', () => {
  const { t, call, newAccount } = serviceSuite(databaseTargets[0]!, { ANCHOR_INTERVAL_SECONDS: '3600', ANCHOR_BATCH_SIZE: '2' }, { persistent: true, workflowSweepMs: 200 });
  const owner = newAccount();
  const browser = suiteChromium();
  let ids: string[];
  const history = new Map<string, string>();

  const pathOf = (shareUrl: string) => new URL(shareUrl).pathname;

  async function open(context: BrowserContext, target: string) {
    const page = await context.newPage();
    const problems = pageProblems(page, { requests: true });
    const response = await page.goto(`${t.url}${target}`, { waitUntil: 'load' });
    return { page, response: response!, problems };
  }

  /** The checks' outcome once the page's script has run them. */
  async function outcome(page: Page): Promise<string> {
    await page.locator('#checks[data-outcome]').waitFor({ timeout: 60_000 });
    return (await page.locator('#checks').getAttribute('data-outcome'))!;
  }

  beforeAll(async () => {
    fs.mkdirSync(artifacts, { recursive: true });
    ids = [await uploadImage(t.url, owner.token), await uploadImage(t.url, owner.token, 'images/ms_cards.webp')];
    for (const id of ids) {
      await waitFor(async () => (await call('GET', `/v1/verifications/${id}`, { token: owner.token })).body.anchored_in?.length, `verification ${id} to be anchored`);
      const res = await call('POST', `/v1/verifications/${id}/share`, { token: owner.token, json: { access_type: 'anyone_with_link' } });
      expect(res.status).toBe(200);
      history.set(id, `${pathOf(res.body.share_url)}/history`);
    }
  }, 400_000);

  for (const viewport of viewports) {
    it(`at ${viewport.width} px: the timeline, each hash linked to the one before, the anchor, and every check passing in the browser; accessible`, async () => {
      const id = ids[0]!;
      const bundle = (await call('GET', `/v1/verifications/${id}/audit-bundle`, { token: owner.token })).body;
      const events = bundle.streams[verificationStream(id)];
      const context = await browser.newContext({ viewport: { width: viewport.width, height: viewport.height } });
      try {
        const { page, response, problems } = await open(context, history.get(id)!);
        expect(response.status()).toBe(200);
        const csp = response.headers()['content-security-policy'];
        expect(csp).toMatch(/script-src 'self' 'nonce-[^']+'/);
        expect(csp).toContain("connect-src 'self'");
        expect(response.headers()['x-robots-tag']).toContain('noindex');

        expect(await outcome(page)).toBe('passed');
        const checks = page.locator('.checks li');
        const names = await checks.evaluateAll((items) => items.map((li) => (li as HTMLElement).dataset.check));
        expect(names).toEqual(expect.arrayContaining([`hash chain ${verificationStream(id)}`, 'merkle inclusion', 'signature', 'certificate chain', 'timestamp']));
        expect(await page.locator('.checks li[data-ok="false"]').count()).toBe(0);
        expect(await page.locator('#check-status').textContent()).toMatch(/^All \d+ checks passed\.$/);

        // The timeline: one item per event, in order, each naming its hash and linking the one before.
        const items = page.locator('.timeline').first().locator(':scope > li');
        expect(await items.count()).toBe(events.length);
        for (const [i, event] of events.entries()) {
          const text = await items.nth(i).innerText();
          expect(text).toContain(event.hash);
          expect(text).toContain(event.type);
          expect(text).toContain(event.metadata.processing_region);
          if (i > 0) expect(await items.nth(i).locator('a').first().getAttribute('href')).toBe(`#${await items.nth(i - 1).getAttribute('id')}`);
        }
        const anchors = await page.locator('section[aria-labelledby="anchors-title"]').innerText();
        expect(anchors).toContain(bundle.anchors[0].root);
        expect(anchors).toContain(bundle.anchors[0].batch_id);
        // Personal fields are digests only through a share link.
        const html = await page.content();
        expect(html).not.toContain(owner.email);

        const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
        expect(overflow, 'no horizontal scrolling').toBeLessThanOrEqual(0);
        expect(await seriousViolations(page)).toEqual([]);
        await page.screenshot({ path: path.join(artifacts, `history-${viewport.width}.png`), fullPage: true });
        expect(problems).toEqual([]);
      } finally {
        await context.close();
      }
    });
  }

  it('the shared bundle hides the owner’s account in the data, and still checks out', async () => {
    const res = await fetch(`${t.url}${history.get(ids[0]!)}/bundle`);
    expect(res.status).toBe(200);
    const bundle = await res.json();
    const queued = bundle.streams[verificationStream(ids[0]!)][0];
    expect(queued.data.account_id).toBe('[hidden from shared views]');
    expect(queued.redacted_fields.account_id).toMatch(/^[0-9a-f]{64}$/);
    // The report's facts, each replayed from the events (issue 35); no account, capture or billing.
    expect(Object.keys(bundle.verification).sort()).toEqual(['assurance_level', 'created_at', 'id', 'image_photo_hash', 'name', 'raw_photo_hash', 'short_code', 'status', 'updated_at', 'verdict', 'verdict_reason', 'verification_mode']);
  });

  it('a removed share: the report’s 404 page, for the history and its bundle', async () => {
    const id = await uploadImage(t.url, owner.token);
    const res = await call('POST', `/v1/verifications/${id}/share`, { token: owner.token, json: { access_type: 'anyone_with_link' } });
    const target = `${pathOf(res.body.share_url)}/history`;
    expect((await fetch(`${t.url}${target}`)).status).toBe(200);
    expect((await call('DELETE', `/v1/verifications/${id}/share`, { token: owner.token })).status).toBe(200);
    const context = await browser.newContext({ viewport: { width: 390, height: 844 } });
    try {
      const { page, response } = await open(context, target);
      expect(response.status()).toBe(404);
      expect(await page.locator('h1').textContent()).toBe('This report is not available');
      expect(await seriousViolations(page)).toEqual([]);
      await page.screenshot({ path: path.join(artifacts, 'removed-share-390.png'), fullPage: true });
    } finally {
      await context.close();
    }
    expect((await fetch(`${t.url}${target}/bundle`)).status).toBe(404);
  });

  it('an event changed in the database: the page shows the broken link', async () => {
    const id = ids[1]!;
    await t.service.deps.knex.raw(`update events set data = jsonb_set(data, '{name}', '"forged.webp"') where stream = ? and revision = 0`, [verificationStream(id)]);
    // The embedded store keeps the streams it wrote in memory (D-067): a restart reads them from the database.
    await t.restart();
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    try {
      const { page, response } = await open(context, history.get(id)!);
      expect(response.status()).toBe(200);
      expect(await outcome(page)).toBe('broken');
      const failed = page.locator('.checks li[data-ok="false"]');
      expect(await failed.count()).toBe(1);
      expect(await failed.getAttribute('data-check')).toBe(`hash chain ${verificationStream(id)}`);
      expect(await failed.innerText()).toMatch(/revision 0 \(VerificationQueued\).*changed after it was recorded/);
      // The broken link is the last check shown: nothing after it was checked.
      expect(await page.locator('.checks li').last().getAttribute('data-ok')).toBe('false');
      expect(await page.locator('#check-status').textContent()).toBe(`Broken link: hash chain ${verificationStream(id)}. Nothing after it was checked. See the event.`);
      // The event the chain breaks at is marked in the timeline, and the status links to it.
      const marked = page.locator('.timeline > li.broken');
      expect(await marked.count()).toBe(1);
      expect(await marked.getAttribute('data-revision')).toBe('0');
      expect(await marked.locator('.broken-note').textContent()).toBe('This event does not match its recorded hashes.');
      expect(await page.locator('#check-status a').getAttribute('href')).toBe(`#${await marked.getAttribute('id')}`);
      expect(await seriousViolations(page)).toEqual([]);
      await page.screenshot({ path: path.join(artifacts, 'history-tampered-1280.png'), fullPage: true });
    } finally {
      await context.close();
    }
  });
});
