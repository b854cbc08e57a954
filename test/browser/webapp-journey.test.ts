/**
 * The journey (issue 27) in real Chromium (Debian's, driven by playwright-core): one
 * person of one account, in one browser at 1280 px, signs in, uploads the 30D pair through the
 * Upload page, watches the verification page follow the analysis to its result, tags it,
 * comments, shares it restricted and invites an address (whose e-mail arrives), removes the
 * invitation and stops sharing, creates an API key (used on the API, then revoked), invites a
 * member (who, in a second browser, sets a password from the mail's link, signs in and finds the
 * verification with its tag), and signs out. Every step is also read back through the REST API
 * (the same state). At each main step the page is checked at 390 px and 1280 px: axe-core (no
 * serious or critical violation), no horizontal scrolling, and a screenshot
 * test-artifacts/webapp/journey-<step>-<width>.png (gitignored) for a person to look at. No
 * console error anywhere (a CSP refusal is one; the journey provokes no refusal on purpose).
 */
import fs from 'node:fs';
import path from 'node:path';
import { simpleParser, type ParsedMail } from 'mailparser';
import type { BrowserContext, Page } from 'playwright-core';
import { beforeAll, expect, it } from 'vitest';
import { chromiumGate, pageProblems, seriousViolations, signInPage, suiteChromium } from '../support/chromium.js';
import { databaseTargets } from '../support/databases.js';
import { recordSecretsIn } from '../support/log-capture.js';
import { serviceSuite } from '../support/suite.js';

const gate = chromiumGate('the web app’s whole journey in a browser');
const artifacts = path.resolve(import.meta.dirname, '../../test-artifacts/webapp');
const fixtures = path.resolve(import.meta.dirname, '../../../shared/fixtures');
const pairDir = path.join(fixtures, 'pairs/canon_eos_30d_cr2');
const photo = { name: 'IMG_5952.jpg', mimeType: 'image/jpeg', buffer: fs.readFileSync(path.join(pairDir, 'IMG_5952.camera-preview.jpg')) };
const raw = { name: 'IMG_5952.CR2', mimeType: 'application/octet-stream', buffer: fs.readFileSync(path.join(pairDir, 'IMG_5952.CR2')) };
const levelLabels: Record<string, string> = { verified: 'Verified', provisional: 'Provisional', provenance: 'Provenance verified', unrated: 'Unrated', flagged: 'Flagged' };
const phone = { width: 390, height: 844 };
const desktop = { width: 1280, height: 800 };

gate.describe('the web app’s journey in Chromium', () => {
  const { t, call, newAccount } = serviceSuite(databaseTargets[0]!, { MAX_UPLOAD_BYTES: String(16 * 1024 * 1024) });
  const owner = newAccount({ name: 'Harbour Picture Desk' });
  const browser = suiteChromium();

  beforeAll(async () => {
    fs.mkdirSync(artifacts, { recursive: true });
  }, 120_000);
  /** A browser context at 1280 px whose page records every console error or warning and page error. */
  async function watched(): Promise<{ context: BrowserContext; page: Page; problems: string[] }> {
    const context = await browser.newContext({ viewport: desktop });
    const page = await context.newPage();
    const problems = pageProblems(page);
    return { context, page, problems };
  }

  /** The page as it is now, on a phone and on a desktop: accessible, no wider than the screen, photographed. Ends at 1280 px. */
  async function checkBothWidths(page: Page, step: string) {
    for (const viewport of [phone, desktop]) {
      await page.setViewportSize(viewport);
      const serious = await seriousViolations(page);
      expect(serious, `${step} at ${viewport.width} px`).toEqual([]);
      const { scrollWidth, innerWidth } = await page.evaluate(() => ({ scrollWidth: document.documentElement.scrollWidth, innerWidth: window.innerWidth }));
      expect(scrollWidth, `${step} at ${viewport.width} px`).toBeLessThanOrEqual(innerWidth);
      await page.screenshot({ path: path.join(artifacts, `journey-${step}-${viewport.width}.png`), fullPage: true });
    }
  }

  /** The outbox's messages (the file mailer writes each as an .eml), once the mail workflows have run. */
  async function outbox(): Promise<ParsedMail[]> {
    await t.settled();
    const dir = path.join(t.dataDir, 'outbox');
    if (!fs.existsSync(dir)) return [];
    return Promise.all(fs.readdirSync(dir).filter((f) => f.endsWith('.eml')).map((f) => simpleParser(fs.readFileSync(path.join(dir, f)))));
  }
  const recipient = (mail: ParsedMail) => (Array.isArray(mail.to) ? mail.to[0] : mail.to)?.text ?? '';

  it('sign in, upload the pair, follow it, tag, comment, share and invite, revoke; a key; a member who signs in; sign out', async () => {
    const owners = await watched();
    const { page } = owners;
    let member: Awaited<ReturnType<typeof watched>> | undefined;
    try {
      // Sign in.
      await page.goto(`${t.url}/app/login`);
      await checkBothWidths(page, 'sign-in');
      await signInPage(page, t.url, owner.email, owner.password);
      expect(await page.locator('header.site').textContent()).toContain('Harbour Picture Desk');
      await checkBothWidths(page, 'list-empty');

      // Upload the 30D pair through the Upload page.
      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Upload' }).click();
      await page.waitForURL(`${t.url}/app/upload`);
      const usage = (await call('GET', `/v1/accounts/${owner.account.id}/usage`, { token: owner.token })).body;
      await expect(page.locator('#quota').innerText()).resolves.toContain(`${usage.included_used} of ${usage.included} included photo + RAW pairs used, ${usage.included_remaining} left.`);
      await page.setInputFiles('#image', photo);
      await page.setInputFiles('#raw', raw);
      await expect(page.locator('#drop-words').innerText()).resolves.toBe('Chosen: photo IMG_5952.jpg, RAW IMG_5952.CR2.');
      await checkBothWidths(page, 'upload-chosen');
      await page.getByRole('button', { name: 'Upload and verify' }).click();
      await page.waitForURL(/\/app\/verifications\/[0-9a-f-]{36}$/, { timeout: 180_000 });
      const id = page.url().split('/').at(-1)!;
      expect((await call('GET', `/v1/verifications/${id}`, { token: owner.token })).body).toMatchObject({ name: 'IMG_5952.jpg', verification_mode: 'raw_pair' });

      // The verification's page follows the analysis by itself until the result (minutes on a busy machine).
      await page.locator('p.level[data-level]').waitFor({ timeout: 540_000 });
      const done = (await call('GET', `/v1/verifications/${id}`, { token: owner.token })).body;
      expect(done.status).toBe('completed');
      await expect(page.locator('p.level[data-level]').innerText()).resolves.toBe(levelLabels[done.assurance_level]);
      await checkBothWidths(page, 'result');

      // Tag it: a new tag, created and added.
      const tags = page.locator('section#tags');
      const tag = 'Harbour contest 2026';
      await page.getByLabel('New tag').fill(tag);
      await page.getByRole('button', { name: 'Create and add' }).click();
      await expect.poll(() => tags.locator('.chips li').allTextContents()).toEqual([`${tag}×`]);
      expect(((await call('GET', `/v1/verifications/${id}`, { token: owner.token })).body.tags as { name: string }[]).map((x) => x.name)).toEqual([tag]);
      expect(((await call('GET', '/v1/tags/', { token: owner.token })).body.items as { name: string }[]).map((x) => x.name)).toContain(tag);
      await checkBothWidths(page, 'tagged');

      // Comment.
      const comments = page.locator('section#comments');
      const remark = 'Shadows and EXIF time agree.\nFine for the front page.';
      await page.getByLabel('Add a comment').fill(remark);
      await page.getByRole('button', { name: 'Add comment' }).click();
      await expect.poll(() => comments.locator('.comment-body').allTextContents()).toEqual([remark]);
      const apiComments = (await call('GET', `/v1/verifications/${id}/comments`, { token: owner.token })).body.items as { body: string; author_name?: string }[];
      expect(apiComments.map((c) => c.body)).toEqual([remark]);
      expect(await comments.locator('.comment-meta').textContent()).toContain(owner.user.name);
      await checkBothWidths(page, 'commented');

      // Share it restricted, then invite an address: the API lists it, its e-mail arrives.
      const sharing = page.locator('#sharing');
      await page.goto(`${t.url}/app/verifications/${id}#sharing`);
      expect(await sharing.locator('.share-state').textContent()).toContain('Not shared');
      await sharing.getByLabel('Only invited e-mail addresses').check();
      await sharing.getByRole('button', { name: 'Share' }).click();
      await page.waitForURL(/notice=share-saved/);
      const share = (await call('GET', `/v1/verifications/${id}/share`, { token: owner.token })).body;
      expect(share.access_type).toBe('restricted');
      expect(await sharing.getByLabel('Link to the report').inputValue()).toBe(share.share_url);
      const juror = 'juror@contest.example';
      await sharing.getByLabel('Invite an e-mail address').fill(juror);
      await sharing.getByRole('button', { name: 'Invite' }).click();
      await page.waitForURL(/notice=invited/);
      expect(await sharing.locator('ul.invites').textContent()).toContain(juror);
      expect((await call('GET', `/v1/verifications/${id}/share`, { token: owner.token })).body.invited_emails).toEqual([juror]);
      const shareMails = (await outbox()).filter((m) => recipient(m) === juror);
      expect(shareMails).toHaveLength(1);
      expect(shareMails[0]!.text ?? '').toContain(new URL(share.share_url).pathname);
      await checkBothWidths(page, 'shared-invited');

      // Remove the invitation, then stop sharing (the link is revoked).
      await sharing.getByRole('button', { name: `Remove the invitation of ${juror}` }).click();
      await page.waitForURL(/notice=invite-removed/);
      expect((await call('GET', `/v1/verifications/${id}/share`, { token: owner.token })).body.invited_emails).toEqual([]);
      await sharing.getByLabel(/Yes, stop sharing/).check();
      await sharing.getByRole('button', { name: 'Stop sharing' }).click();
      await page.waitForURL(/notice=share-stopped/);
      expect((await call('GET', `/v1/verifications/${id}/share`, { token: owner.token })).status).toBe(404);
      expect(await sharing.locator('.share-state').textContent()).toContain('Not shared');
      await checkBothWidths(page, 'share-stopped');

      // Account: create a key (shown once), use it on the API, revoke it.
      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Account' }).click();
      await page.waitForURL(`${t.url}/app/account/keys`);
      await checkBothWidths(page, 'keys');
      const description = 'Picture desk uploader';
      await page.getByLabel('Description').fill(description);
      await page.getByRole('button', { name: 'Create the key' }).click();
      await page.getByRole('heading', { level: 1, name: 'Your new API key' }).waitFor();
      const key = await page.getByLabel(new RegExp(`^${description}`)).inputValue();
      recordSecretsIn(key);
      expect(key).toMatch(/^pv_[A-Za-z0-9]{12}_[A-Za-z0-9_-]{43}$/);
      const withKey = await call('GET', `/v1/verifications/${id}`, { apiKey: key });
      expect(withKey.status).toBe(200);
      expect(withKey.body.id).toBe(id);
      await checkBothWidths(page, 'key-created');
      await page.getByRole('link', { name: 'Back to your keys' }).click();
      expect(await page.content()).not.toContain(key);
      await page.getByRole('link', { name: `Revoke the key ${description}` }).click();
      expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Revoke this key?');
      await page.getByRole('button', { name: 'Revoke the key' }).click();
      await page.waitForURL(`${t.url}/app/account/keys?done=revoked`);
      expect(await page.getByRole('status').first().textContent()).toContain('The key was revoked.');
      expect((await call('GET', `/v1/verifications/${id}`, { apiKey: key })).status).toBe(401);
      await checkBothWidths(page, 'key-revoked');

      // Members: invite one, who sets a password from the mail's link in another browser and signs in.
      await page.getByRole('navigation', { name: 'Account' }).getByRole('link', { name: 'Members' }).click();
      await page.waitForURL(`${t.url}/app/account/members`);
      const memberEmail = 'ines@harbour.example';
      const memberPassword = 'chosen in the browser 1';
      await page.getByLabel('Name', { exact: true }).fill('Inès Invitée');
      await page.getByLabel('E-mail address').fill(memberEmail);
      await page.getByRole('button', { name: 'Send the invitation' }).click();
      await page.waitForURL(`${t.url}/app/account/members?done=invited`);
      expect(await page.locator('ul.members').textContent()).toContain('Invited, has not chosen a password yet');
      const users = async () => ((await call('GET', `/v1/accounts/${owner.account.id}/users`, { token: owner.token })).body.items as { email: string; role: string; status: string }[]).find((u) => u.email === memberEmail);
      expect(await users()).toMatchObject({ role: 'member', status: 'invited' });
      await checkBothWidths(page, 'member-invited');

      const invitation = (await outbox()).filter((m) => recipient(m) === memberEmail);
      expect(invitation).toHaveLength(1);
      const link = new URL(/(http\S+\/accounts\/set-password#pvi_[A-Za-z0-9_-]{43})/.exec(invitation[0]!.text ?? '')![1]!);
      member = await watched();
      await member.page.goto(`${t.url}${link.pathname}${link.hash}`);
      await member.page.getByLabel('New password').fill(memberPassword);
      await member.page.getByLabel('Repeat the password').fill(memberPassword);
      await member.page.getByRole('button', { name: 'Set password' }).click();
      await expect.poll(() => member!.page.locator('#status').textContent(), { timeout: 30_000 }).toContain('Your password is set.');
      expect(await users()).toMatchObject({ role: 'member', status: 'active' });
      await signInPage(member.page, t.url, memberEmail, memberPassword);
      expect(await member.page.locator('header.site').textContent()).toContain('Harbour Picture Desk');
      // The account's verification, with its tag, in the member's list (the API says the same to the member).
      const row = member.page.locator('ul.rows li').filter({ has: member.page.getByRole('link', { name: 'IMG_5952.jpg' }) });
      await expect(row.locator('.tag').allTextContents()).resolves.toEqual([tag]);
      const memberToken = (await call('POST', '/v1/accounts/login', { json: { email: memberEmail, password: memberPassword } })).body.access_token as string;
      recordSecretsIn(memberToken);
      const memberList = (await call('GET', '/v1/verifications/', { token: memberToken })).body.items as { id: string; tags?: { name: string }[] }[];
      expect(memberList.map((v) => [v.id, (v.tags ?? []).map((x) => x.name)])).toEqual([[id, [tag]]]);
      await checkBothWidths(member.page, 'member-list');
      await page.reload();
      expect(await page.locator('ul.members').textContent()).not.toContain('Invited, has not chosen a password yet');

      // Sign out: the cookie is gone, the app sends the browser to sign in.
      await page.getByRole('button', { name: 'Sign out' }).click();
      await page.waitForURL(`${t.url}/app/login?notice=signed-out`);
      await page.goto(`${t.url}/app/verifications/${id}`);
      expect(new URL(page.url()).pathname).toBe('/app/login');
      expect((await owners.context.cookies()).map((c) => c.name)).not.toContain('pv_app_session');
      await checkBothWidths(page, 'signed-out');

      expect(owners.problems).toEqual([]);
      expect(member.problems).toEqual([]);
    } finally {
      await member?.context.close();
      await owners.context.close();
    }
  }, 900_000);
});
