/**
 * The set-password page an invitation link opens, in real Chromium (Debian's, driven by
 * playwright-core): the invitee chooses a password with the form, the token never leaves the
 * fragment except in the script's POST, and the page passes axe-core.
 */
import fs from 'node:fs';
import path from 'node:path';
import { simpleParser } from 'mailparser';
import type { Page } from 'playwright-core';
import { expect, it } from 'vitest';
import { databaseTargets } from '../support/databases.js';
import { chromiumGate, seriousViolations, suiteChromium } from '../support/chromium.js';
import { registerAccount } from '../support/service.js';
import { serviceSuite } from '../support/suite.js';

const gate = chromiumGate('the set-password page in a browser');

gate.describe('the set-password page in Chromium', () => {
  const { t, call } = serviceSuite(databaseTargets[0]!);
  const browser = suiteChromium();

  /** Invites an address and returns the link from the mail the service wrote to its outbox. */
  async function invite(email: string): Promise<string> {
    const admin = await registerAccount(call);
    const res = await call('POST', `/v1/accounts/${admin.account.id}/users`, { token: admin.token, json: { email, name: 'Ines', role: 'member' } });
    expect(res.status).toBe(201);
    await t.settled();
    const dir = path.join(t.dataDir, 'outbox');
    for (const file of fs.readdirSync(dir)) {
      const mail = await simpleParser(fs.readFileSync(path.join(dir, file)));
      if ((Array.isArray(mail.to) ? mail.to[0] : mail.to)?.text !== email) continue;
      const link = /(http\S+\/accounts\/set-password#pvi_[A-Za-z0-9_-]{43})/.exec(mail.text ?? '')![1]!;
      // The service's public base URL is its own address here (PORT 0): open it on the socket.
      return `${t.url}${new URL(link).pathname}${new URL(link).hash}`;
    }
    throw new Error(`no invitation mail to ${email}`);
  }

  async function open(url: string): Promise<{ page: Page; requests: string[] }> {
    const page = await (await browser.newContext()).newPage();
    const requests: string[] = [];
    page.on('request', (request) => requests.push(`${request.method()} ${request.url()}`));
    await page.goto(url);
    return { page, requests };
  }

  it('sets the password from the link; the token is used once and leaves the address bar', async () => {
    const email = 'browser-invitee@org.example';
    const link = await invite(email);
    const { page, requests } = await open(link);
    expect(await page.locator('h1').textContent()).toBe('Choose your password');
    expect(await seriousViolations(page)).toEqual([]);

    await page.getByLabel('New password').fill('chosen in the browser 1');
    await page.getByLabel('Repeat the password').fill('something else entirely');
    await page.getByRole('button', { name: 'Set password' }).click();
    await expect.poll(() => page.locator('#status').textContent()).toBe('The two passwords differ.');

    await page.getByLabel('Repeat the password').fill('chosen in the browser 1');
    await page.getByRole('button', { name: 'Set password' }).click();
    await expect.poll(() => page.locator('#status').textContent(), { timeout: 30_000 }).toBe(`Your password is set. Log in with ${email} and your new password.`);
    expect(new URL(page.url()).hash).toBe('');
    expect(await page.locator('form').isHidden()).toBe(true);
    // The page load carried no token; only the script's POST did (in its body).
    expect(requests.filter((r) => r.includes('pvi_'))).toEqual([]);
    expect(requests).toContain(`POST ${t.url}/v1/accounts/invitations/accept`);
    expect((await call('POST', '/v1/accounts/login', { json: { email, password: 'chosen in the browser 1' } })).status).toBe(200);

    // The same link again: the page says so, in words.
    const second = await open(link);
    await second.page.getByLabel('New password').fill('another attempt 12345');
    await second.page.getByLabel('Repeat the password').fill('another attempt 12345');
    await second.page.getByRole('button', { name: 'Set password' }).click();
    await expect.poll(() => second.page.locator('#status').textContent(), { timeout: 30_000 }).toMatch(/^This invitation link is not valid/);
  }, 120_000);

  it('without a token the page says to open the link from the e-mail and shows no form', async () => {
    const { page } = await open(`${t.url}/accounts/set-password`);
    expect(await page.locator('#status').textContent()).toBe('Open this page from the link in your invitation e-mail.');
    expect(await page.locator('form').isHidden()).toBe(true);
  }, 60_000);
});
