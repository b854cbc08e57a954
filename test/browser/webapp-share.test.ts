/**
 * The verification page's sharing, files and delete sections (issue 27, must-work 2) in real
 * Chromium at 390 px and 1280 px: share restricted, copy the link, invite an address (its e-mail
 * arrives in the outbox), remove the invitation, stop sharing, download the badge rendition, and
 * delete with the confirmation. Each page checked with axe-core (no serious or critical
 * violation), for horizontal scrolling and console errors (a CSP refusal is one); screenshots in
 * test-artifacts/webapp/share-*.png for a person to look at.
 */
import fs from 'node:fs';
import path from 'node:path';
import { simpleParser } from 'mailparser';
import { beforeAll, expect, it } from 'vitest';
import { databaseTargets } from '../support/databases.js';
import { chromiumGate, pageCheck, pageProblems, signInPage, suiteChromium, viewports } from '../support/chromium.js';
import { uploadImage, uploadPair } from '../support/service.js';
import { serviceSuite } from '../support/suite.js';

const gate = chromiumGate('the web app’s sharing, files and delete in a browser');
const artifacts = path.resolve(import.meta.dirname, '../../test-artifacts/webapp');

/** The addressees of the outbox's messages. */
async function outboxRecipients(dataDir: string): Promise<string[]> {
  const dir = path.join(dataDir, 'outbox');
  if (!fs.existsSync(dir)) return [];
  const mails = await Promise.all(fs.readdirSync(dir).filter((f) => f.endsWith('.eml')).map((f) => simpleParser(fs.readFileSync(path.join(dir, f)))));
  return mails.map((m) => (Array.isArray(m.to) ? m.to[0] : m.to)?.text ?? '');
}

gate.describe('the web app’s sharing, files and delete in Chromium', () => {
  const { t, call, newAccount } = serviceSuite(databaseTargets[0]!, { MAX_UPLOAD_BYTES: String(16 * 1024 * 1024) });
  const owner = newAccount({ name: 'Harbour Picture Desk' });
  const browser = suiteChromium();
  let pair: string;

  /** What a page must be at every step: accessible, no wider than the screen. */
  const checkPage = pageCheck(artifacts, { prefix: 'share-' });

  beforeAll(async () => {
    fs.mkdirSync(artifacts, { recursive: true });
    pair = await uploadPair(t.url, owner.token);
    await t.settled();
  }, 300_000);

  for (const viewport of viewports) {
    it(`at ${viewport.width} px: share restricted, invite, remove, stop; download the badge; delete with the confirmation`, async () => {
      const doomed = await uploadImage(t.url, owner.token, 'images/rs_sample1.webp', `old-draft-${viewport.width}.webp`);
      await t.settled();
      const context = await browser.newContext({ viewport, acceptDownloads: true });
      await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: t.url });
      const page = await context.newPage();
      const problems = pageProblems(page);
      const sharing = page.locator('#sharing');
      try {
        await signInPage(page, t.url, owner.email, owner.password);

        await page.goto(`${t.url}/app/verifications/${pair}#sharing`);
        expect(await sharing.locator('.share-state').textContent()).toContain('Not shared');

        // Share restricted.
        await sharing.getByLabel('Only invited e-mail addresses').check();
        await sharing.getByRole('button', { name: 'Share' }).click();
        await page.waitForURL(/notice=share-saved/);
        const api = (await call('GET', `/v1/verifications/${pair}/share`, { token: owner.token })).body;
        expect(api.access_type).toBe('restricted');
        expect(await sharing.getByLabel('Link to the report').inputValue()).toBe(api.share_url);
        // The copy button exists only with the script, which ran under the page's nonce.
        await sharing.getByRole('button', { name: 'Copy link' }).click();
        await expect.poll(() => sharing.locator('#copy-status').textContent()).toMatch(/Link copied\.|Selected/);
        await checkPage(page, `restricted-${viewport.width}`);

        // Invite an address: the API lists it, its e-mail arrives.
        const address = `juror-${viewport.width}@contest.example`;
        await sharing.getByLabel('Invite an e-mail address').fill(address);
        await sharing.getByRole('button', { name: 'Invite' }).click();
        await page.waitForURL(/notice=invited/);
        expect(await sharing.locator('ul.invites').textContent()).toContain(address);
        expect((await call('GET', `/v1/verifications/${pair}/share`, { token: owner.token })).body.invited_emails).toEqual([address]);
        await t.settled();
        expect(await outboxRecipients(t.dataDir)).toContain(address);
        await checkPage(page, `invited-${viewport.width}`);

        // Remove the invitation, then stop sharing.
        await sharing.getByRole('button', { name: `Remove the invitation of ${address}` }).click();
        await page.waitForURL(/notice=invite-removed/);
        expect((await call('GET', `/v1/verifications/${pair}/share`, { token: owner.token })).body.invited_emails).toEqual([]);
        await sharing.getByLabel(/Yes, stop sharing/).check();
        await sharing.getByRole('button', { name: 'Stop sharing' }).click();
        await page.waitForURL(/notice=share-stopped/);
        expect((await call('GET', `/v1/verifications/${pair}/share`, { token: owner.token })).status).toBe(404);
        expect(await sharing.locator('.share-state').textContent()).toContain('Not shared');

        // Download the badge rendition: the bytes the API's route gives.
        const files = page.locator('#files');
        const [download] = await Promise.all([page.waitForEvent('download'), files.getByRole('link', { name: 'Download the badge rendition' }).click()]);
        const downloaded = fs.readFileSync((await download.path())!);
        const viaApi = await call('GET', `/v1/verifications/${pair}/renditions/signed/original`, { token: owner.token });
        const expected = Buffer.from(await (await fetch(new URL(viaApi.headers.get('location')!, t.url))).arrayBuffer());
        expect(downloaded.equals(expected)).toBe(true);
        await checkPage(page, `files-${viewport.width}`);

        // Delete with the confirmation: refused by the browser until ticked, then to the list.
        await page.goto(`${t.url}/app/verifications/${doomed}#delete`);
        const remove = page.locator('#delete');
        await checkPage(page, `delete-${viewport.width}`);
        await remove.getByRole('button', { name: 'Delete' }).click();
        expect(new URL(page.url()).pathname).toBe(`/app/verifications/${doomed}`);
        await remove.getByLabel(/Yes, delete/).check();
        await remove.getByRole('button', { name: 'Delete' }).click();
        await page.waitForURL(`${t.url}/app/verifications?notice=deleted`);
        expect(await page.getByRole('status').first().textContent()).toBe('The verification was deleted, with its files.');
        expect((await call('GET', `/v1/verifications/${doomed}`, { token: owner.token })).status).toBe(404);
        await checkPage(page, `deleted-${viewport.width}`);
        expect(problems).toEqual([]);
      } finally {
        await context.close();
      }
    }, 300_000);
  }
});
