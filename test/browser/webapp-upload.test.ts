/**
 * The web app's upload page (issue 27, must-work 2) in real Chromium (Debian's, driven by
 * playwright-core): the 30D pair dropped onto the page (a DataTransfer dispatched in the page),
 * sent with its progress bar, then the verification's page followed until its result; a wrong
 * file refused above the form; an image alone sent without JavaScript. At 390 px and 1280 px,
 * axe-core on every state, no console error (a CSP refusal is one), no horizontal scrolling.
 * Screenshots in test-artifacts/webapp/upload-*.png (gitignored), for a person to look at.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { BrowserContext } from 'playwright-core';
import { beforeAll, expect, it } from 'vitest';
import { chromiumGate, pageCheck, pageProblems, seriousViolations, signInPage, suiteChromium } from '../support/chromium.js';
import { databaseTargets } from '../support/databases.js';
import { serviceSuite } from '../support/suite.js';

const gate = chromiumGate('the web app’s upload page in a browser');
const artifacts = path.resolve(import.meta.dirname, '../../test-artifacts/webapp');
const fixtures = path.resolve(import.meta.dirname, '../../../shared/fixtures');
const pairDir = path.join(fixtures, 'pairs/canon_eos_30d_cr2');
const photo = { name: 'IMG_5952.jpg', mimeType: 'image/jpeg', buffer: fs.readFileSync(path.join(pairDir, 'IMG_5952.camera-preview.jpg')) };
const raw = { name: 'IMG_5952.CR2', mimeType: 'application/octet-stream', buffer: fs.readFileSync(path.join(pairDir, 'IMG_5952.CR2')) };
const webp = { name: 'harbour-at-dawn.webp', mimeType: 'image/webp', buffer: fs.readFileSync(path.join(fixtures, 'images/rs_sample1.webp')) };
const levelLabels: Record<string, string> = { verified: 'Verified', provisional: 'Provisional', provenance: 'Provenance verified', unrated: 'Unrated', flagged: 'Flagged' };

gate.describe('the web app’s upload page in Chromium', () => {
  const { t, call, newAccount } = serviceSuite(databaseTargets[0]!, { MAX_UPLOAD_BYTES: String(16 * 1024 * 1024) });
  const owner = newAccount({ name: 'Harbour Picture Desk' });
  const browser = suiteChromium();

  beforeAll(async () => {
    fs.mkdirSync(artifacts, { recursive: true });
  }, 120_000);
  const checkPage = pageCheck(artifacts, { prefix: 'upload-' });

  async function signedIn(context: BrowserContext) {
    const page = await context.newPage();
    const problems = pageProblems(page);
    await signInPage(page, t.url, owner.email, owner.password);
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Upload' }).click();
    await page.waitForURL(`${t.url}/app/upload`);
    return { page, problems };
  }

  it('at 1280 px: the 30D pair dropped onto the page, sent with its progress bar, then followed to its result', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    try {
      const { page, problems } = await signedIn(context);
      const usage = (await call('GET', `/v1/accounts/${owner.account.id}/usage`, { token: owner.token })).body;
      await expect(page.locator('#quota').innerText()).resolves.toContain(`${usage.included_used} of ${usage.included} included photo + RAW pairs used, ${usage.included_remaining} left.`);
      expect(await page.locator('#drop-hint').isVisible()).toBe(true);
      await checkPage(page, 'form-1280');

      // Both files dropped at once, as a person drags them from a folder: each goes to its input.
      await page.evaluate(
        ({ files }) => {
          const transfer = new DataTransfer();
          for (const f of files) {
            const bytes = Uint8Array.from(atob(f.base64), (c) => c.charCodeAt(0));
            transfer.items.add(new File([bytes], f.name, { type: f.mimeType }));
          }
          const target = document.querySelector('main h1')!;
          for (const type of ['dragenter', 'dragover']) target.dispatchEvent(new DragEvent(type, { bubbles: true, cancelable: true, dataTransfer: transfer }));
          (window as unknown as { dropping: DataTransfer }).dropping = transfer;
        },
        { files: [raw, photo].map((f) => ({ name: f.name, mimeType: f.mimeType, base64: f.buffer.toString('base64') })) },
      );
      // While the files are dragged over the page, the drop zone says it takes them.
      expect(await page.locator('#drop-zone').getAttribute('class')).toBe('drop-zone live dragging');
      await page.screenshot({ path: path.join(artifacts, 'upload-dragging-1280.png'), fullPage: true });
      await page.evaluate(() => {
        const dataTransfer = (window as unknown as { dropping: DataTransfer }).dropping;
        document.querySelector('main h1')!.dispatchEvent(new DragEvent('drop', { bubbles: true, cancelable: true, dataTransfer }));
      });
      expect(await page.locator('#drop-zone').getAttribute('class')).toBe('drop-zone live');
      expect(await page.evaluate(() => ['image', 'raw'].map((id) => (document.getElementById(id) as HTMLInputElement).files?.[0]?.name))).toEqual(['IMG_5952.jpg', 'IMG_5952.CR2']);
      await expect(page.locator('#drop-words').innerText()).resolves.toBe('Chosen: photo IMG_5952.jpg, RAW IMG_5952.CR2.');
      await checkPage(page, 'dropped-1280');

      // Every value the progress bar takes, recorded as it changes (the page leaves once the upload is accepted).
      const seen: number[] = [];
      await page.exposeFunction('recordProgress', (value: number) => seen.push(value));
      await page.evaluate(() => {
        const bar = document.getElementById('upload-progress') as HTMLProgressElement;
        new MutationObserver(() => (window as unknown as { recordProgress(v: number): void }).recordProgress(bar.value)).observe(bar, { attributes: true, attributeFilter: ['value'] });
      });
      // A slow uplink (1 MB/s, Chromium's network emulation): the 8 MB pair takes seconds, so the bar is seen part way.
      const cdp = await context.newCDPSession(page);
      await cdp.send('Network.enable');
      await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: 1024 * 1024 });
      await page.getByRole('button', { name: 'Upload and verify' }).click();
      await page.waitForFunction(() => {
        const bar = document.getElementById('upload-progress') as HTMLProgressElement;
        return bar.value > 0 && bar.value < 100;
      });
      await expect(page.locator('#upload-words').innerText()).resolves.toMatch(/^\d+ % sent \(\d+\.\d MB of 7\.5 MB\)$/);
      expect(await page.getByRole('button', { name: 'Upload and verify' }).isDisabled()).toBe(true);
      await page.screenshot({ path: path.join(artifacts, 'upload-sending-1280.png'), fullPage: true });
      expect(await seriousViolations(page)).toEqual([]);
      await page.waitForURL(/\/app\/verifications\/[0-9a-f-]{36}$/, { timeout: 180_000 });
      await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: -1 });
      expect(seen.some((value) => value > 0 && value < 100)).toBe(true);
      expect(seen.at(-1)).toBe(100);
      expect(seen).toEqual([...seen].sort((a, b) => a - b));
      const id = page.url().split('/').at(-1)!;
      const created = (await call('GET', `/v1/verifications/${id}`, { token: owner.token })).body;
      expect(created).toMatchObject({ name: 'IMG_5952.jpg', verification_mode: 'raw_pair' });

      // The verification's page follows the analysis by itself until the result (minutes on a busy machine).
      await page.locator('p.level[data-level]').waitFor({ timeout: 540_000 });
      const done = (await call('GET', `/v1/verifications/${id}`, { token: owner.token })).body;
      expect(done.status).toBe('completed');
      await expect(page.locator('p.level[data-level]').innerText()).resolves.toBe(levelLabels[done.assurance_level]);
      await checkPage(page, 'result-1280');

      // The pair counted: the quota says one more used.
      await page.goto(`${t.url}/app/upload`);
      await expect(page.locator('#quota').innerText()).resolves.toContain(`${usage.included_used + 1} of ${usage.included} included`);
      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }
  }, 720_000);

  it('at 390 px: a wrong file refused above the form, then an image alone chosen and sent', async () => {
    const context = await browser.newContext({ viewport: { width: 390, height: 844 } });
    try {
      const { page, problems } = await signedIn(context);
      await checkPage(page, 'form-390');
      // The files first, on the first screen, the quota below them (in reading order as on screen).
      const top = async (selector: string) => (await page.locator(selector).boundingBox())!.y;
      const [photoTop, rawTop, quotaTop] = [await top('#image'), await top('#raw'), await top('#quota')];
      expect(photoTop).toBeLessThan(quotaTop);
      expect(rawTop).toBeLessThan(quotaTop);
      expect(rawTop).toBeLessThan(844);
      expect(await page.locator('#image, #quota').evaluateAll((els) => els.map((e) => e.id))).toEqual(['image', 'quota']);
      await page.setInputFiles('#image', { name: 'notes.jpg', mimeType: 'image/jpeg', buffer: Buffer.from('not a photo at all') });
      await expect(page.locator('#drop-words').innerText()).resolves.toBe('Chosen: photo notes.jpg.');
      await page.getByRole('button', { name: 'Upload and verify' }).click();
      await expect.poll(() => page.getByRole('alert').innerText(), { timeout: 60_000 }).toContain('which is not accepted');
      // Said with the page's names for its fields, not the API's parts.
      expect(await page.getByRole('alert').innerText()).toMatch(/^The photo is /);
      expect(await page.locator('#upload').isHidden()).toBe(true);
      expect(await page.getByRole('button', { name: 'Upload and verify' }).isEnabled()).toBe(true);
      await checkPage(page, 'refused-390');
      // The refusal's 400 is the only console message: Chromium reports every 4xx answer there.
      expect(problems).toEqual(['console error: Failed to load resource: the server responded with a status of 400 (Bad Request)']);
      problems.length = 0;

      await page.setInputFiles('#image', webp);
      await page.getByRole('button', { name: 'Upload and verify' }).click();
      await page.waitForURL(/\/app\/verifications\/[0-9a-f-]{36}$/, { timeout: 120_000 });
      const id = page.url().split('/').at(-1)!;
      expect((await call('GET', `/v1/verifications/${id}`, { token: owner.token })).body).toMatchObject({ name: 'harbour-at-dawn.webp', verification_mode: 'image_only' });
      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }
  }, 300_000);

  it('without JavaScript: the native form sends an image alone and lands on its page; a refusal is the page again', async () => {
    const context = await browser.newContext({ viewport: { width: 390, height: 844 }, javaScriptEnabled: false });
    try {
      const { page } = await signedIn(context);
      expect(await page.locator('#drop-hint').isHidden()).toBe(true);
      expect(await page.locator('#drop-zone').getAttribute('class')).toBe('drop-zone');
      await page.setInputFiles('#image', { name: 'notes.jpg', mimeType: 'image/jpeg', buffer: Buffer.from('not a photo at all') });
      const refused = page.waitForResponse((r) => r.url() === `${t.url}/app/upload` && r.request().method() === 'POST');
      await page.getByRole('button', { name: 'Upload and verify' }).click();
      expect((await refused).status()).toBe(400);
      await expect(page.getByRole('alert').innerText()).resolves.toContain('which is not accepted');
      // axe-core runs as page script, which is off here: the same markup is checked with script on above.
      await page.screenshot({ path: path.join(artifacts, 'upload-refused-nojs-390.png'), fullPage: true });

      await page.setInputFiles('#image', webp);
      await page.getByRole('button', { name: 'Upload and verify' }).click();
      await page.waitForURL(/\/app\/verifications\/[0-9a-f-]{36}$/, { timeout: 120_000 });
      const id = page.url().split('/').at(-1)!;
      expect((await call('GET', `/v1/verifications/${id}`, { token: owner.token })).body).toMatchObject({ name: 'harbour-at-dawn.webp', verification_mode: 'image_only' });
    } finally {
      await context.close();
    }
  }, 300_000);
});
