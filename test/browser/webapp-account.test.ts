/**
 * The web app's account pages (issue 27, must-work 3) in real Chromium (Debian's, driven by
 * playwright-core) at 390 px and 1280 px: create an API key and copy it with the button, use it
 * on the API, revoke it; invite a member, who sets a password through the mailed link and signs
 * in; the usage and plan page. Every page checked with axe-core (no serious or critical
 * violations), for horizontal scrolling and for console errors (a CSP refusal is one).
 * Screenshots in test-artifacts/webapp/account-*.png for a person to look at.
 */
import fs from 'node:fs';
import path from 'node:path';
import { simpleParser } from 'mailparser';
import type { BrowserContext, Page } from 'playwright-core';
import { beforeAll, expect, it } from 'vitest';
import { databaseTargets } from '../support/databases.js';
import { chromiumGate, pageCheck, pageProblems, signInPage, suiteChromium, viewports } from '../support/chromium.js';
import { recordSecretsIn } from '../support/log-capture.js';
import { serviceSuite } from '../support/suite.js';

const gate = chromiumGate('the web app’s account pages in a browser');
const artifacts = path.resolve(import.meta.dirname, '../../test-artifacts/webapp');

gate.describe('the web app’s account pages in Chromium', () => {
  const { t, call, newAccount } = serviceSuite(databaseTargets[0]!);
  const owner = newAccount({ name: 'Harbour Picture Desk', plan: 'professional', monthly_budget_cap_eur: 40 });
  const browser = suiteChromium();

  const checkPage = pageCheck(artifacts, { prefix: 'account-' });

  /** A browser context whose console errors, page errors and refused requests are collected. */
  async function watched(viewport: { width: number; height: number }): Promise<{ context: BrowserContext; page: Page; problems: string[] }> {
    const context = await browser.newContext({ viewport });
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: t.url });
    const page = await context.newPage();
    const problems = pageProblems(page);
    return { context, page, problems };
  }

  async function invitationLink(email: string): Promise<string> {
    await t.settled();
    const dir = path.join(t.dataDir, 'outbox');
    for (const file of fs.readdirSync(dir)) {
      const mail = await simpleParser(fs.readFileSync(path.join(dir, file)));
      if ((Array.isArray(mail.to) ? mail.to[0] : mail.to)?.text !== email) continue;
      const link = new URL(/(http\S+\/accounts\/set-password#pvi_[A-Za-z0-9_-]{43})/.exec(mail.text ?? '')![1]!);
      return `${t.url}${link.pathname}${link.hash}`;
    }
    throw new Error(`no invitation mail to ${email}`);
  }

  beforeAll(async () => {
    fs.mkdirSync(artifacts, { recursive: true });
  }, 300_000);

  for (const viewport of viewports) {
    const w = viewport.width;

    it(`at ${w} px: creates a key, copies it with the button, uses it, revokes it`, async () => {
      const { context, page, problems } = await watched(viewport);
      try {
        await signInPage(page, t.url, owner.email, owner.password);
        await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Account' }).click();
        await page.waitForURL(`${t.url}/app/account/keys`);
        expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('API keys');
        await checkPage(page, `keys-${w}`);

        const description = `Uploader ${w} px 📷`;
        await page.getByLabel('Description').fill(description);
        await page.getByLabel(/Read only/).check();
        await page.getByLabel('Expires after (days)').fill('30');
        await page.getByRole('button', { name: 'Create the key' }).click();
        await page.getByRole('heading', { level: 1, name: 'Your new API key' }).waitFor();
        const field = page.getByLabel(new RegExp(`^${description}`));
        const raw = await field.inputValue();
        recordSecretsIn(raw);
        expect(raw).toMatch(/^pv_[A-Za-z0-9]{12}_[A-Za-z0-9_-]{43}$/);
        await page.getByRole('button', { name: 'Copy' }).click();
        await expect.poll(() => page.locator('#copy-status').textContent()).toContain('Copied.');
        expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(raw);
        await checkPage(page, `key-created-${w}`);
        // The key works on the API, read-only as chosen.
        expect((await call('GET', '/v1/verifications/', { apiKey: raw })).status).toBe(200);
        expect((await call('POST', '/v1/apikeys/', { apiKey: raw, json: { account_id: owner.account.id } })).status).toBe(403);

        // Reloading the answer would post the form again: the list never shows the key.
        await page.getByRole('link', { name: 'Back to your keys' }).click();
        expect(await page.content()).not.toContain(raw);
        await page.getByRole('link', { name: `Revoke the key ${description}` }).click();
        expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Revoke this key?');
        await checkPage(page, `key-revoke-${w}`);
        await page.getByRole('button', { name: 'Revoke the key' }).click();
        await page.waitForURL(`${t.url}/app/account/keys?done=revoked`);
        expect(await page.getByRole('status').first().textContent()).toContain('The key was revoked.');
        expect((await call('GET', '/v1/verifications/', { apiKey: raw })).status).toBe(401);
        await checkPage(page, `keys-revoked-${w}`);
        expect(problems).toEqual([]);
      } finally {
        await context.close();
      }
    }, 180_000);

    it(`at ${w} px: invites a member who sets a password through the mail’s link and signs in; the usage page`, async () => {
      const admin = await watched(viewport);
      const invitee = await watched(viewport);
      const email = `ines-${w}@harbour.example`;
      try {
        await signInPage(admin.page, t.url, owner.email, owner.password);
        await admin.page.goto(`${t.url}/app/account/members`);
        await checkPage(admin.page, `members-${w}`);
        await admin.page.getByLabel('Name', { exact: true }).fill(`Inès Invitée ${w}`);
        await admin.page.getByLabel('E-mail address').fill(email);
        await admin.page.getByRole('button', { name: 'Send the invitation' }).click();
        await admin.page.waitForURL(`${t.url}/app/account/members?done=invited`);
        expect(await admin.page.locator('ul.members').textContent()).toContain('Invited, has not chosen a password yet');
        await checkPage(admin.page, `members-invited-${w}`);

        // The invitee: the link from the outbox, the set-password page, then the app's sign-in.
        await invitee.page.goto(await invitationLink(email));
        await invitee.page.getByLabel('New password').fill('chosen in the browser 1');
        await invitee.page.getByLabel('Repeat the password').fill('chosen in the browser 1');
        await invitee.page.getByRole('button', { name: 'Set password' }).click();
        await expect.poll(() => invitee.page.locator('#status').textContent(), { timeout: 30_000 }).toContain('Your password is set.');
        await signInPage(invitee.page, t.url, email, 'chosen in the browser 1');
        expect(await invitee.page.locator('header.site').textContent()).toContain('Harbour Picture Desk');
        await invitee.page.goto(`${t.url}/app/account/members`);
        expect(await invitee.page.content()).toContain('Only an admin of the account can invite');
        expect(await invitee.page.getByRole('button', { name: 'Send the invitation' }).count()).toBe(0);
        await checkPage(invitee.page, `members-as-member-${w}`);
        await invitee.page.goto(`${t.url}/app/account/usage`);
        await checkPage(invitee.page, `usage-as-member-${w}`);

        await admin.page.reload();
        expect(await admin.page.locator('ul.members').textContent()).not.toContain('Invited, has not chosen a password yet');
        await admin.page.getByRole('link', { name: 'Usage and plan' }).click();
        await admin.page.waitForURL(`${t.url}/app/account/usage`);
        expect(await admin.page.getByRole('heading', { level: 1 }).textContent()).toBe('Usage and plan');
        await checkPage(admin.page, `usage-${w}`);
        expect(admin.problems).toEqual([]);
        expect(invitee.problems).toEqual([]);
      } finally {
        await admin.context.close();
        await invitee.context.close();
      }
    }, 180_000);
  }
});
