import fs from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import { systemContext } from '../../src/core/es/commands.js';
import { findMailMessage } from '../../projections/mail/queries.js';
import { queueMail } from '../../src/features/mail/use-cases.js';
import { databaseTargets } from '../support/databases.js';
import { requires } from '../support/requires.js';
import { client, registerAccount } from '../support/service.js';
import { serviceSuite } from '../support/suite.js';

const webp = fs.readFileSync(path.resolve(import.meta.dirname, '../../../shared/fixtures/images/rs_sample1.webp'));

/**
 * Delivery to a real SMTP server, Mailpit (CI: .ci/run builds it from the Go module proxy and
 * exports MAILPIT_URL and MAILPIT_SMTP_URL), read back through Mailpit's HTTP API.
 */
const mailpitUrl = process.env.MAILPIT_URL;
const mailpitSmtp = process.env.MAILPIT_SMTP_URL ?? 'smtp://127.0.0.1:1025';
const mailpit = requires({ server: 'Mailpit server', variable: 'MAILPIT_URL', how: '.ci/run starts one; docs/operations.md says how to run it locally' }, 'mail delivery to Mailpit');

interface MailpitSummary {
  ID: string;
  MessageID: string;
  Subject: string;
  From: { Name: string; Address: string };
  To: { Name: string; Address: string }[];
}

/** Every message Mailpit holds for `address`, newest first, waiting up to `timeoutMs` for the first. */
async function mailpitMessagesTo(address: string, timeoutMs = 30_000): Promise<MailpitSummary[]> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const list = (await (await fetch(`${mailpitUrl}/api/v1/messages?limit=500`)).json()) as { messages: MailpitSummary[] };
    const mine = list.messages.filter((m) => m.To.some((to) => to.Address === address));
    if (mine.length > 0 || Date.now() > until) return mine;
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function mailpitMessage(messageId: string, timeoutMs = 30_000): Promise<{ summary: MailpitSummary; all: MailpitSummary[]; Text: string; HTML: string }> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const list = (await (await fetch(`${mailpitUrl}/api/v1/messages?limit=500`)).json()) as { messages: MailpitSummary[] };
    const all = list.messages.filter((m) => m.MessageID === messageId);
    if (all[0]) {
      const full = (await (await fetch(`${mailpitUrl}/api/v1/message/${all[0].ID}`)).json()) as { Text: string; HTML: string };
      return { summary: all[0], all, Text: full.Text, HTML: full.HTML };
    }
    if (Date.now() > until) throw new Error(`Mailpit has no message ${messageId}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

mailpit.describe('mail delivery to Mailpit (a real SMTP server)', () => {
  const { t } = serviceSuite(databaseTargets[0]!, {
    SMTP_URL: mailpitSmtp,
    MAIL_FROM: 'PhotoVerify <no-reply@verify.example.eu>',
    PUBLIC_BASE_URL: 'https://verify.example.eu',
  });

  it('delivers a queued message once, with its subject, recipient, Message-ID and a link built from PUBLIC_BASE_URL', async () => {
    const deps = t.service.deps;
    const id = `mailpit-${Date.now()}`;
    const link = `${deps.config.PUBLIC_BASE_URL}/r/${id}`;
    const ctx = systemContext(deps, { actor: { type: 'system', id: 'test' }, correlationId: id, accountId: null });
    const mail = { id, to: 'judge@example.eu', subject: `Anna shared a verification with you (${id})`, text: `Open the report: ${link}\n`, html: `<p><a href="${link}">Open the report</a></p>`, accountId: null };
    await queueMail(deps, ctx, mail);
    await queueMail(deps, ctx, mail); // the same id again: still one message

    const got = await mailpitMessage(`${id}@verify.example.eu`);
    expect(got.summary.Subject).toBe(mail.subject);
    expect(got.summary.To.map((to) => to.Address)).toEqual(['judge@example.eu']);
    expect(got.summary.From).toEqual({ Name: 'PhotoVerify', Address: 'no-reply@verify.example.eu' });
    expect(got.Text).toContain('https://verify.example.eu/r/');
    expect(got.HTML).toContain(`href="https://verify.example.eu/r/${id}"`);

    const row = await findMailMessage(deps.knex, id);
    expect(row).toMatchObject({ status: 'sent', attempts: 1, message_id: `<${id}@verify.example.eu>` });
    await new Promise((r) => setTimeout(r, 500)); // a duplicate would have arrived by now
    expect((await mailpitMessage(`${id}@verify.example.eu`)).all).toHaveLength(1);
  });

  it('an invitation through the sharing API arrives with the personal link under PUBLIC_BASE_URL', async () => {
    const call = client(t.url);
    const owner = await registerAccount(call);
    const form = new FormData();
    form.append('image', new Blob([new Uint8Array(webp)]), 'harbour.webp');
    const uploaded = await fetch(`${t.url}/v1/verifications/`, { method: 'POST', headers: { authorization: `Bearer ${owner.token}` }, body: form });
    expect(uploaded.status).toBe(201);
    const { id } = (await uploaded.json()) as { id: string };
    await t.settled();
    const shared = await call('POST', `/v1/verifications/${id}/share`, { token: owner.token, json: { access_type: 'restricted' } });
    expect(shared.status).toBeLessThan(300);
    const invitee = `judge-${Date.now()}@contest.example`;
    const invited = await call('POST', `/v1/verifications/${id}/share/invites`, { token: owner.token, json: { email: invitee } });
    expect(invited.status).toBeLessThan(300);

    const [summary, ...more] = await mailpitMessagesTo(invitee);
    expect(more).toHaveLength(0);
    expect(summary!.MessageID).toMatch(/@verify\.example\.eu$/);
    expect(summary!.Subject).toContain('shared a photo verification with you');
    const full = (await (await fetch(`${mailpitUrl}/api/v1/message/${summary!.ID}`)).json()) as { Text: string; HTML: string };
    const shareUrl = shared.body.share_url as string;
    expect(shareUrl.startsWith('https://verify.example.eu/shared/')).toBe(true);
    expect(full.Text).toContain(`${shareUrl}?invite=`);
    expect(full.HTML).toContain(`href="${shareUrl}?invite=`);
  });
});
