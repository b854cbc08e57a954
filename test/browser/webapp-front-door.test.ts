/**
 * The front door (issue 39 item 1) in real Chromium, at 390 px and 1280 px: from `/` a person
 * creates an account and lands in it, signs out, forgets the password, gets the link by e-mail
 * and chooses a new one, then signs in with it. Every page is checked with axe-core, for console
 * errors and for width; screenshots go to test-artifacts/webapp/.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { beforeAll, expect, it } from 'vitest';
import { chromiumGate, pageCheck, pageProblems, suiteChromium, viewports } from '../support/chromium.js';
import { databaseTargets } from '../support/databases.js';
import { outbox, to } from '../support/outbox.js';
import { waitFor } from '../support/poll.js';
import { serviceSuite } from '../support/suite.js';

const gate = chromiumGate('the front door in a browser');
const artifacts = path.resolve(import.meta.dirname, '../../test-artifacts/webapp');

gate.describe('the front door in Chromium', () => {
  const { t } = serviceSuite(databaseTargets[0]!);
  const browser = suiteChromium();
  const checkPage = pageCheck(artifacts);

  beforeAll(() => {
    fs.mkdirSync(artifacts, { recursive: true });
  });

  for (const viewport of viewports) {
    it(`at ${viewport.width} px: sign up from the home page, sign out, reset the password by e-mail, sign in with it`, async () => {
      const context = await browser.newContext({ viewport });
      const page = await context.newPage();
      const problems = pageProblems(page);
      const email = `desk-${crypto.randomUUID()}@example.eu`;
      try {
        await page.goto(`${t.url}/`);
        await checkPage(page, `home-${viewport.width}`);
        await page.getByRole('link', { name: 'Create an account' }).click();
        await page.waitForURL(`${t.url}/app/signup`);
        await checkPage(page, `signup-${viewport.width}`);
        await page.getByLabel('Organisation name').fill('Harbour Picture Desk');
        await page.getByLabel('Your name').fill('Ada Editor');
        await page.getByLabel('Your e-mail address').fill(email);
        await page.getByLabel('Password (10 to 200 characters)').fill('the first long password');
        await page.getByLabel('Plan').selectOption('basic');
        await page.getByRole('button', { name: 'Create the account' }).click();
        await page.waitForURL(`${t.url}/app/verifications`);
        expect(await page.locator('header.site').textContent()).toContain('Harbour Picture Desk');

        await page.getByRole('button', { name: 'Sign out' }).click();
        await page.waitForURL(`${t.url}/app/login?notice=signed-out`);
        await page.getByRole('link', { name: 'Forgot your password?' }).click();
        await page.waitForURL(`${t.url}/app/password-reset`);
        await checkPage(page, `reset-request-${viewport.width}`);
        await page.getByLabel('E-mail address').fill(email);
        await page.getByRole('button', { name: 'Send the link' }).click();
        await expect.poll(() => page.getByRole('status').textContent()).toContain('we have sent a link');
        await checkPage(page, `reset-sent-${viewport.width}`);

        await t.settled();
        const mail = await waitFor(async () => (await outbox(t.dataDir)).find((m) => to(m) === email && /Reset your/.test(m.subject ?? '')), 'the reset mail');
        const link = /(https?:\/\/\S+\/app\/password-reset\/pvr_\S+)/.exec(mail.text ?? '')![1]!;
        await page.goto(link.replace(t.service.deps.config.PUBLIC_BASE_URL, t.url));
        await checkPage(page, `reset-choose-${viewport.width}`);
        await page.getByLabel('New password (10 to 200 characters)').fill('the second long password');
        await page.getByLabel('The new password again').fill('the second long password');
        await page.getByRole('button', { name: 'Set the new password' }).click();
        await page.waitForURL(`${t.url}/app/login?notice=password-reset`);
        expect(await page.getByRole('status').textContent()).toContain('Your new password is set');
        await checkPage(page, `login-after-reset-${viewport.width}`);

        await page.getByLabel('E-mail address').fill(email);
        await page.getByLabel('Password').fill('the second long password');
        await page.getByRole('button', { name: 'Sign in' }).click();
        await page.waitForURL(`${t.url}/app/verifications`);
        expect(problems).toEqual([]);
      } finally {
        await context.close();
      }
    }, 180_000);
  }
});
