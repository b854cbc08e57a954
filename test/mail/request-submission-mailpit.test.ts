import fs from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import { databaseTargets } from '../support/databases.js';
import { requires } from '../support/requires.js';
import { serviceSuite } from '../support/suite.js';

/**
 * The requester's e-mail of a submission (issue 24, must-work 3) through a real SMTP server,
 * Mailpit (MAILPIT_URL and MAILPIT_SMTP_URL, as test/mail/mailpit.test.ts), read back through
 * its HTTP API: a photo submitted through a request's page arrives once, to the request's
 * creator, with the request's subject and the verification's API link under PUBLIC_BASE_URL.
 */
const mailpitUrl = process.env.MAILPIT_URL;
const mailpitSmtp = process.env.MAILPIT_SMTP_URL ?? 'smtp://127.0.0.1:1025';
const mailpit = requires({ server: 'Mailpit server', variable: 'MAILPIT_URL', how: '.ci/run starts one; docs/operations.md says how to run it locally' }, 'a submission mail delivered to Mailpit');
const webp = fs.readFileSync(path.resolve(import.meta.dirname, '../../../shared/fixtures/images/rs_sample1.webp'));

interface MailpitSummary {
  ID: string;
  MessageID: string;
  Subject: string;
  To: { Address: string }[];
}

mailpit.describe('a submission mail delivered to Mailpit (a real SMTP server)', () => {
  const { t, call, newAccount } = serviceSuite(databaseTargets[0]!, { SMTP_URL: mailpitSmtp, MAIL_FROM: 'PhotoVerify <no-reply@verify.example.eu>', PUBLIC_BASE_URL: 'https://verify.example.eu' });
  const owner = newAccount();

  it('arrives once, to the request’s creator, with the request’s subject and the verification’s API link', async () => {
    const subject = `Harbour at dawn ${Date.now()}`;
    const created = await call('POST', '/v1/requests', { token: owner.token, json: { subject, expires_at: new Date(Date.now() + 86_400_000).toISOString() } });
    expect(created.status).toBe(201);
    const form = new FormData();
    form.append('image', new Blob([new Uint8Array(webp)]), 'harbour.webp');
    const sent = await fetch(`${t.url}${new URL(created.body.url).pathname}`, { method: 'POST', body: form, redirect: 'manual' });
    expect(sent.status).toBe(303);
    const verificationId = sent.headers.get('location')!.split('/').at(-1)!;

    let mine: MailpitSummary[] = [];
    for (let i = 0; i < 300 && mine.length === 0; i++) {
      const list = (await (await fetch(`${mailpitUrl}/api/v1/messages?limit=500`)).json()) as { messages: MailpitSummary[] };
      mine = list.messages.filter((m) => m.To.some((to) => to.Address === owner.email));
      if (mine.length === 0) await new Promise((r) => setTimeout(r, 100));
    }
    await new Promise((r) => setTimeout(r, 500)); // a duplicate would have arrived by now
    const list = (await (await fetch(`${mailpitUrl}/api/v1/messages?limit=500`)).json()) as { messages: MailpitSummary[] };
    mine = list.messages.filter((m) => m.To.some((to) => to.Address === owner.email));
    expect(mine).toHaveLength(1);
    expect(mine[0]!.Subject).toBe(`New submission to your request: ${subject}`);
    expect(mine[0]!.MessageID).toMatch(new RegExp(`^photoverify-request-submission-${verificationId}@verify\\.example\\.eu$`));
    const full = (await (await fetch(`${mailpitUrl}/api/v1/message/${mine[0]!.ID}`)).json()) as { Text: string; HTML: string };
    expect(full.Text).toContain(`The verification: https://verify.example.eu/v1/verifications/${verificationId}`);
    expect(full.HTML).toContain(`href="https://verify.example.eu/v1/verifications/${verificationId}"`);
    expect(full.Text).not.toContain(created.body.token);
  }, 120_000);
});
