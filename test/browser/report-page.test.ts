/**
 * The shared report page in real Chromium (Debian's, driven by playwright-core): a verified
 * pair, a flagged pair and an image-only AI-declared file, shared through the HTTP API, opened
 * at 375 px and 1280 px with and without JavaScript, checked with axe-core. Screenshots are kept
 * in test-artifacts/report-page/ (gitignored) for a person to look at.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { beforeAll, expect, it } from 'vitest';
import { linkKey, linkToken } from '../../src/features/sharing/tokens.js';
import { databaseTargets } from '../support/databases.js';
import { chromiumGate, pageProblems, seriousViolations, suiteChromium } from '../support/chromium.js';
import { serviceSuite } from '../support/suite.js';

const gate = chromiumGate('the report page in a browser');

const fixtures = path.resolve(import.meta.dirname, '../../../shared/fixtures');
const fixture = (name: string) => fs.readFileSync(path.join(fixtures, name));
const artifacts = path.resolve(import.meta.dirname, '../../test-artifacts/report-page');

type Part = { field: string; name: string; bytes: Uint8Array };

async function upload(url: string, token: string, parts: Part[]): Promise<string> {
  const form = new FormData();
  for (const part of parts) form.append(part.field, new Blob([new Uint8Array(part.bytes)]), part.name);
  const response = await fetch(`${url}/v1/verifications/`, { method: 'POST', headers: { authorization: `Bearer ${token}` }, body: form });
  const body = await response.json();
  if (response.status !== 201) throw new Error(`upload failed: ${response.status} ${JSON.stringify(body)}`);
  return body.id;
}

/** What each case must show: the level and verdict words, the analyses, and what the API says. */
interface Case {
  label: string;
  parts: Part[];
  level: string;
  levelLabel: string;
  verdict?: string;
  analyses: string[];
  /** The same analyses by their API names, in the page's order. */
  analysisKeys: string[];
  pair: boolean;
  badge: boolean;
}

const pairRaw = { field: 'raw', name: 'IMG_5952.CR2', bytes: fixture('pairs/canon_eos_30d_cr2/IMG_5952.CR2') };
const pairAnalyses = ['RAW integrity', 'Structural similarity (SSIM)', 'Perceptual hash', 'Colour histogram', 'Processing chain', 'EXIF comparison (advisory)', 'Sensor noise pattern', 'Recapture detection'];
const pairKeys = ['raw_integrity', 'ssim', 'perceptual_hash', 'color_histogram', 'processing_chain', 'exif', 'sensor_pattern', 'recapture'];
const cases: Case[] = [
  {
    label: 'verified-pair',
    parts: [{ field: 'image', name: 'IMG_5952.jpg', bytes: fixture('pairs/canon_eos_30d_cr2/IMG_5952.camera-preview.jpg') }, pairRaw],
    level: 'verified',
    levelLabel: 'Verified',
    analyses: pairAnalyses,
    analysisKeys: pairKeys,
    pair: true,
    badge: true,
  },
  {
    label: 'flagged-pair',
    parts: [{ field: 'image', name: 'other-scene.jpg', bytes: fixture('images/mei_canon-eos450d.jpg') }, pairRaw],
    level: 'flagged',
    levelLabel: 'Flagged',
    analyses: pairAnalyses,
    analysisKeys: pairKeys,
    pair: true,
    badge: false,
  },
  {
    label: 'ai-declared-image',
    parts: [{ field: 'image', name: 'gen-fill.jpg', bytes: fixture('c2pa/jsl_gen-fill.jpg') }],
    level: 'unrated',
    levelLabel: 'Unrated',
    verdict: 'self_declared_ai',
    analyses: ['Content Credentials (C2PA)'],
    analysisKeys: ['c2pa_credentials'],
    pair: false,
    badge: false,
  },
];

const viewports = [
  { name: 'phone', width: 375, height: 812 },
  { name: 'desktop', width: 1280, height: 900 },
];

gate.describe('the shared report page in Chromium', () => {
  const { t, call, newAccount } = serviceSuite(databaseTargets[0]!, { MAX_UPLOAD_BYTES: String(16 * 1024 * 1024) });
  const owner = newAccount();
  const other = newAccount();
  const browser = suiteChromium();
  const shared = new Map<string, { id: string; path: string; api: any }>();
  let unsharedId: string;
  /** Strings that must never appear in a page: account, user, verification and result ids, e-mails, blob keys. */
  const secrets: string[] = [];

  /** The path of a share URL (the test service's PUBLIC_BASE_URL is not the address it listens on). */
  const pathOf = (shareUrl: string) => new URL(shareUrl).pathname + new URL(shareUrl).search;

  async function open(context: BrowserContext, target: string) {
    const page = await context.newPage();
    const problems = pageProblems(page, { requests: true });
    const response = await page.goto(`${t.url}${target}`, { waitUntil: 'load' });
    return { page, response: response!, problems };
  }

  async function imagesLoaded(page: Page): Promise<{ src: string; ok: boolean }[]> {
    return page.evaluate(() => Array.from(document.images).map((img) => ({ src: img.getAttribute('src') ?? '', ok: img.complete && img.naturalWidth > 0 })));
  }

  beforeAll(async () => {
    fs.mkdirSync(artifacts, { recursive: true });
    const ids = await Promise.all(cases.map((c) => upload(t.url, owner.token, c.parts)));
    unsharedId = await upload(t.url, owner.token, [{ field: 'image', name: 'harbour.webp', bytes: fixture('images/rs_sample1.webp') }]);
    await t.settled();
    for (const [i, c] of cases.entries()) {
      const id = ids[i]!;
      const api = (await call('GET', `/v1/verifications/${id}`, { token: owner.token })).body;
      expect(api.status, `${c.label}: ${JSON.stringify(api.failure_reason)}`).toBe('completed');
      expect(api.assurance_level).toBe(c.level);
      const res = await call('POST', `/v1/verifications/${id}/share`, { token: owner.token, json: { access_type: 'anyone_with_link' } });
      expect(res.status).toBe(200);
      shared.set(c.label, { id, path: pathOf(res.body.share_url), api });
      secrets.push(id, ...api.results.map((r: { id: string }) => r.id), ...api.results.map((r: { verificator_id?: string }) => r.verificator_id).filter(Boolean));
    }
    secrets.push(owner.account.id, owner.user.id, owner.email, other.account.id, unsharedId);
  }, 300_000);

  for (const c of cases) {
    for (const viewport of viewports) {
      it(`${c.label} at ${viewport.width} px: level, analyses, hashes, images, nothing private, accessible`, async () => {
        const { path: target, api } = shared.get(c.label)!;
        const context = await browser.newContext({ viewport: { width: viewport.width, height: viewport.height } });
        try {
          const { page, response, problems } = await open(context, target);
          expect(response.status()).toBe(200);
          const headers = response.headers();
          expect(headers['content-type']).toBe('text/html; charset=utf-8');
          expect(headers['x-robots-tag']).toContain('noindex');
          expect(headers['content-security-policy']).toMatch(/default-src 'none'/);
          expect(headers['content-security-policy']).toMatch(/script-src 'nonce-[^']+'/);
          expect(await page.locator('meta[name="robots"]').getAttribute('content')).toContain('noindex');

          expect((await page.locator('.level').textContent())?.trim()).toBe(c.levelLabel);
          expect(await page.locator('.level').getAttribute('data-level')).toBe(c.level);
          if (c.verdict) {
            expect(await page.locator('[data-verdict]').getAttribute('data-verdict')).toBe(c.verdict);
            await expect(page.locator('.verdict-label').textContent()).resolves.toContain('AI-generated');
          }
          const names = await page.locator('.analyses h3').allTextContents();
          expect(names).toEqual(c.analyses);
          // Each analysis with the result the API gives it.
          const outcomes = (await page.locator('.analyses .outcome').allTextContents()).map((o) => o.replace(/^[✓✗–]\s*/, ''));
          const word = (result: boolean | null) => (result === true ? 'Pass' : result === false ? 'Fail' : 'Not decided');
          const byName = new Map<string, string>(api.results.map((r: { details: { analysis: string }; result: boolean | null }) => [r.details.analysis, word(r.result)]));
          expect(outcomes).toEqual(c.analysisKeys.map((key) => byName.get(key)));
          expect(await page.locator('[data-hash="image"]').textContent()).toBe(api.image_photo_hash.replace('sha256:', ''));
          if (c.pair) expect(await page.locator('[data-hash="raw"]').textContent()).toBe(api.raw_photo_hash.replace('sha256:', ''));
          const text = await page.locator('main').innerText();
          expect(text).toContain('eu-central-1 (European Union)');
          expect(text).toMatch(/Verification date\s+\d{1,2} \w+ \d{4}/);
          if (c.pair) {
            expect(await page.locator('img.heatmap').count()).toBe(1);
            expect(await page.locator('#flicker img').count()).toBe(2);
          } else {
            expect(text).toContain('Content Credentials');
            expect(text).toMatch(/Signed by/);
            expect(text).toMatch(/AI declarations/);
            expect(await page.locator('#flicker').count()).toBe(0);
          }
          expect(await page.locator('img.badge').count()).toBe(c.badge ? 1 : 0);

          const html = await page.content();
          for (const secret of secrets) expect(html, `the page must not contain ${secret}`).not.toContain(secret);
          expect(html).not.toMatch(/@example\.eu|verifications\/|\/blobs\//);

          const images = await imagesLoaded(page);
          expect(images.length).toBeGreaterThan(0);
          for (const image of images) expect(image.ok, `${image.src} did not load`).toBe(true);
          const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
          expect(overflow, 'no horizontal scrolling').toBeLessThanOrEqual(0);

          if (c.pair) {
            // The flicker: JavaScript shows its controls and stacks the two layers.
            const toggle = page.locator('#flicker-toggle');
            await expect(toggle.isVisible()).resolves.toBe(true);
            const rawVisibility = () => page.locator('#flicker figure[data-layer="raw"]').evaluate((el) => getComputedStyle(el).visibility);
            expect(await rawVisibility()).toBe('hidden');
            await toggle.click();
            expect(await page.locator('#flicker').getAttribute('data-showing')).toBe('raw');
            expect(await rawVisibility()).toBe('visible');
            expect(await toggle.getAttribute('aria-pressed')).toBe('true');
            await page.screenshot({ path: path.join(artifacts, `${c.label}-${viewport.width}-flicker-raw.png`), fullPage: false, clip: await clipOf(page, '#flicker') });
            await toggle.click();
            expect(await page.locator('#flicker').getAttribute('data-showing')).toBe('photo');
            const run = page.locator('#flicker-run');
            await run.click();
            const seen = new Set<string>();
            for (let i = 0; i < 12; i++) {
              seen.add((await page.locator('#flicker').getAttribute('data-showing'))!);
              await page.waitForTimeout(150);
            }
            expect([...seen].sort()).toEqual(['photo', 'raw']);
            await run.click();
            expect(await run.getAttribute('aria-pressed')).toBe('false');
          }

          expect(await seriousViolations(page)).toEqual([]);
          await page.screenshot({ path: path.join(artifacts, `${c.label}-${viewport.width}.png`), fullPage: true });
          expect(problems).toEqual([]);
        } finally {
          await context.close();
        }
      });
    }

    it(`${c.label} without JavaScript: complete, only the flicker controls absent`, async () => {
      const { path: target, api } = shared.get(c.label)!;
      const context = await browser.newContext({ viewport: { width: 375, height: 812 }, javaScriptEnabled: false });
      try {
        const { page, response, problems } = await open(context, target);
        expect(response.status()).toBe(200);
        expect((await page.locator('.level').textContent())?.trim()).toBe(c.levelLabel);
        expect(await page.locator('.analyses li').count()).toBe(api.results.length);
        expect(await page.locator('[data-hash="image"]').textContent()).toBe(api.image_photo_hash.replace('sha256:', ''));
        const images = await imagesLoaded(page);
        for (const image of images) expect(image.ok, `${image.src} did not load`).toBe(true);
        if (c.pair) {
          expect(await page.locator('.flicker-controls').isVisible()).toBe(false);
          // Both layers shown, one after the other, each with its caption.
          for (const layer of ['photo', 'raw']) expect(await page.locator(`#flicker figure[data-layer="${layer}"]`).isVisible()).toBe(true);
          expect(await page.locator('#flicker figcaption').allTextContents()).toEqual(['The photo', 'The RAW, rendered and aligned']);
        }
        // The EXIF fields compared, in a disclosure that opens without script (the verified pair's preview JPEG has no EXIF).
        const exif = api.results.find((r: { details: { analysis: string } }) => r.details.analysis === 'exif');
        expect(await page.locator('details.more').count()).toBe(exif?.details.compared.length ? 1 : 0);
        if (exif?.details.compared.length) {
          await page.locator('details.more summary').click();
          expect(await page.locator('details.more table tbody tr').count()).toBe(exif.details.compared.length);
        }
        await page.screenshot({ path: path.join(artifacts, `${c.label}-375-nojs.png`), fullPage: true });
        expect(problems).toEqual([]);
      } finally {
        await context.close();
      }
    });
  }

  /** An HTML error page: the status, the words, no report content and no JSON envelope. */
  async function expectErrorPage(context: BrowserContext, target: string, status: number, title: RegExp, screenshot?: string) {
    const { page, response, problems } = await open(context, target);
    expect(response.status(), target).toBe(status);
    if (status === 403) await expect(page.locator('main').innerText()).resolves.toContain('personal link in your invitation e-mail');
    expect(response.headers()['content-type']).toBe('text/html; charset=utf-8');
    expect(response.headers()['x-robots-tag']).toContain('noindex');
    await expect(page.locator('h1').textContent()).resolves.toMatch(title);
    expect(await page.locator('.level, .analyses, [data-hash], img').count()).toBe(0);
    const html = await page.content();
    expect(html).not.toContain('error_code');
    for (const secret of secrets) expect(html).not.toContain(secret);
    expect(await seriousViolations(page)).toEqual([]);
    if (screenshot) await page.screenshot({ path: path.join(artifacts, screenshot), fullPage: true });
    // The browser reports the failed document load itself; nothing else may fail.
    expect(problems.filter((p) => !p.includes(`status of ${status}`))).toEqual([]);
  }

  it('answers a link that is unknown, malformed, for an unshared verification, or removed with the same 404 page', async () => {
    const context = await browser.newContext({ viewport: { width: 375, height: 812 } });
    try {
      const notAvailable = /not available/;
      await expectErrorPage(context, `/shared/${'A'.repeat(32)}`, 404, notAvailable, 'error-404-375.png');
      await expectErrorPage(context, '/shared/not-a-token', 404, notAvailable);
      await expectErrorPage(context, `/shared/${'A'.repeat(32)}/files/image`, 404, notAvailable);
      // A token made with the service's own key for a verification that was never shared.
      await expectErrorPage(context, `/shared/${linkToken(linkKey(t.dataDir), 'share', unsharedId, 'n'.repeat(22))}`, 404, notAvailable);
      // Sharing removed: the URL that worked stops working, files included.
      const res = await call('POST', `/v1/verifications/${unsharedId}/share`, { token: owner.token, json: { access_type: 'anyone_with_link' } });
      const target = pathOf(res.body.share_url);
      expect((await open(context, target)).response.status()).toBe(200);
      expect((await call('DELETE', `/v1/verifications/${unsharedId}/share`, { token: owner.token })).status).toBe(200);
      await expectErrorPage(context, target, 404, notAvailable);
      await expectErrorPage(context, `${target}/files/image`, 404, notAvailable);
      // A file the report does not have.
      await expectErrorPage(context, `${shared.get('flagged-pair')!.path}/files/badge`, 404, /not available/);
    } finally {
      await context.close();
    }
  });

  it('keeps a restricted share to its invitees: another account and a revoked invitee see the restricted page, never the report', async () => {
    const { id, path: openPath } = shared.get('verified-pair')!;
    const restricted = await call('POST', `/v1/verifications/${id}/share`, { token: owner.token, json: { access_type: 'restricted' } });
    expect(pathOf(restricted.body.share_url)).toBe(openPath);
    const invitee = 'judge@contest.example';
    expect((await call('POST', `/v1/verifications/${id}/share/invites`, { token: owner.token, json: { email: invitee } })).status).toBe(200);
    await t.settled();
    const link = invitationLink(t.dataDir, invitee);
    expect(link.startsWith(openPath)).toBe(true);

    const anonymousContext = await browser.newContext({ viewport: { width: 375, height: 812 } });
    const otherContext = await browser.newContext({ viewport: { width: 1280, height: 900 }, extraHTTPHeaders: { authorization: `Bearer ${other.token}` } });
    try {
      const restrictedTitle = /restricted/;
      await expectErrorPage(anonymousContext, openPath, 403, restrictedTitle, 'error-403-375.png');
      await expectErrorPage(otherContext, openPath, 403, restrictedTitle);
      await expectErrorPage(otherContext, `${openPath}/files/image`, 403, restrictedTitle);

      // The invitation's personal link opens the page, and its images (their URLs carry the proof).
      const { page, response, problems } = await open(anonymousContext, link);
      expect(response.status()).toBe(200);
      expect((await page.locator('.level').textContent())?.trim()).toBe('Verified');
      for (const image of await imagesLoaded(page)) expect(image.ok, `${image.src} did not load`).toBe(true);
      expect(await page.content()).not.toContain(invitee);
      expect(problems).toEqual([]);

      // Revoked: the same link stops at once, page and files.
      expect((await call('DELETE', `/v1/verifications/${id}/share/invites`, { token: owner.token, json: { email: invitee } })).status).toBe(200);
      await expectErrorPage(anonymousContext, link, 403, restrictedTitle);
      const [base, query] = link.split('?');
      await expectErrorPage(anonymousContext, `${base}/files/image?${query}`, 403, restrictedTitle);
    } finally {
      await anonymousContext.close();
      await otherContext.close();
      await call('POST', `/v1/verifications/${id}/share`, { token: owner.token, json: { access_type: 'anyone_with_link' } });
    }
  });
});

/** The personal link of the invitation mailed to `email`, read from the file outbox (DATA_DIR/outbox). */
function invitationLink(dataDir: string, email: string): string {
  const outbox = path.join(dataDir, 'outbox');
  for (const file of fs.readdirSync(outbox)) {
    // Quoted-printable bodies: soft line breaks and an encoded '='.
    const text = fs.readFileSync(path.join(outbox, file), 'utf8').replace(/=\r?\n/g, '').replace(/=3D/g, '=');
    if (!text.includes(email)) continue;
    const match = /https?:\/\/[^\s"<>]+?(\/shared\/[A-Za-z0-9_-]{32}\?invite=[A-Za-z0-9_-]{32})/.exec(text);
    if (match) return match[1]!;
  }
  throw new Error(`no invitation for ${email} in ${outbox}`);
}

/** The bounding box of an element, for a screenshot of just that part. */
async function clipOf(page: Page, selector: string) {
  await page.locator(selector).scrollIntoViewIfNeeded();
  const box = (await page.locator(selector).boundingBox())!;
  return { x: box.x, y: box.y, width: box.width, height: Math.min(box.height, 2000) };
}
