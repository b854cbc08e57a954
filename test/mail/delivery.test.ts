import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { simpleParser } from 'mailparser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemContext } from '../../src/core/es/commands.js';
import type { CommandContext } from '../../src/core/es/decider.js';
import { AppError } from '../../src/core/errors.js';
import { contentKey } from '../../src/features/mail/content.js';
import { findMailMessage, type MailMessageRow } from '../../projections/mail/queries.js';
import { queueMail, type OutgoingMail } from '../../src/features/mail/use-cases.js';
import { databaseTargets } from '../support/databases.js';
import { reportSkip } from '../support/requires.js';
import { client, registerAccount, startTestService, type TestService } from '../support/service.js';
import { startSmtpReceiver, type SmtpReceiver } from '../support/smtp-receiver.js';

/**
 * The service with SMTP_URL pointing at an in-process receiver whose behaviour depends on the
 * recipient: `flaky2@` refuses the first two attempts with 451, `down@` always answers 451,
 * `nobody@` is refused with 550, `slow@` takes 1.5 s to accept RCPT. Back-off is 50 ms doubling,
 * 3 attempts (MAIL_RETRY_INITIAL_MS, MAIL_DELIVERY_ATTEMPTS), so retries take milliseconds.
 * Nothing here measures time: back-off is read from the recorded events.
 */
const temporalAddress = process.env.TEMPORAL_ADDRESS;
if (!temporalAddress) reportSkip('mail delivery on the Temporal engine (it ran in-process)', { server: 'Temporal server', variable: 'TEMPORAL_ADDRESS', how: 'host:port of `temporal server start-dev`' });
const variants = [
  ...databaseTargets.map((target) => ({ name: target.name, target, env: {} as Record<string, string> })),
  ...(temporalAddress
    ? [{ name: 'pglite with Temporal', target: databaseTargets[0]!, env: { TEMPORAL_ADDRESS: temporalAddress, TEMPORAL_TASK_QUEUE: `pv-mail-${crypto.randomUUID()}` } }]
    : []),
];

for (const { name, target, env } of variants) {
  describe(`mail delivery on ${name}`, () => {
    let t: TestService;
    let receiver: SmtpReceiver;
    let call: ReturnType<typeof client>;
    const rcptByAddress = new Map<string, number>();
    let counter = 0;

    beforeAll(async () => {
      receiver = await startSmtpReceiver({
        async rcpt(_n, address) {
          const seen = (rcptByAddress.get(address) ?? 0) + 1;
          rcptByAddress.set(address, seen);
          const local = address.split('@')[0]!;
          if (local.startsWith('flaky2') && seen <= 2) return { code: 451, message: '4.3.0 try again later' };
          if (local.startsWith('down')) return { code: 451, message: '4.3.0 try again later' };
          if (local.startsWith('nobody')) return { code: 550, message: '5.1.1 no such user' };
          if (local.startsWith('slow')) await new Promise((r) => setTimeout(r, 1500));
          return undefined;
        },
      });
      t = await startTestService(target, {
        SMTP_URL: receiver.url,
        MAIL_FROM: 'PhotoVerify <no-reply@verify.example.eu>',
        MAIL_RETRY_INITIAL_MS: '50',
        MAIL_DELIVERY_ATTEMPTS: '3',
        ...env,
      });
      call = client(t.url);
    });
    afterAll(async () => {
      // Every message here reaches an end: wait for the runs (Temporal: their results are
      // followed) so the engine stops with nothing in flight.
      await t?.service.deps.workflows.idle();
      await t?.stop();
      await receiver?.close();
    });

    const mail = (to: string, accountId: string | null, id = `test-${target.name}-${env.TEMPORAL_ADDRESS ? 'temporal-' : ''}${Date.now()}-${++counter}`): OutgoingMail => ({
      id,
      to,
      subject: `Shared with you ${id}`,
      text: `Open https://verify.example.eu/r/${id}`,
      html: `<p><a href="https://verify.example.eu/r/${id}">Open the report</a></p>`,
      accountId,
    });
    const contextFor = (accountId: string | null, userId = 'test-user'): CommandContext =>
      systemContext(t.service.deps, { actor: { type: 'user', id: userId }, correlationId: `req-${counter}`, accountId });

    /** Polls the read model until the message is sent or failed. */
    async function finished(id: string, timeoutMs = 30_000): Promise<MailMessageRow> {
      const until = Date.now() + timeoutMs;
      for (;;) {
        const row = await findMailMessage(t.service.deps.knex, id);
        if (row && (row.status === 'sent' || row.status === 'failed')) return row;
        if (Date.now() > until) throw new Error(`mail ${id} not finished: ${JSON.stringify(row)}`);
        await new Promise((r) => setTimeout(r, 20));
      }
    }
    const received = (id: string) => receiver.messages.filter((m) => m.messageId === `<${id}@verify.example.eu>`);
    const history = async (id: string, token: string) => {
      const res = await call('GET', `/v1/audit/streams/mail-${id}`, { token });
      expect(res.status).toBe(200);
      return res.body.events as { type: string; data: Record<string, any>; metadata: Record<string, any> }[];
    };

    it('queueMail returns before delivery, and the message arrives once with its Message-ID; the audit history shows each step', async () => {
      const { token, account, user } = await registerAccount(call);
      const m = mail(`slow-${counter}@example.eu`, account.id);
      await queueMail(t.service.deps, contextFor(account.id, user.id), m);
      expect(received(m.id)).toHaveLength(0); // the receiver takes 1.5 s to accept the recipient: not sent inline
      const row = await finished(m.id);
      expect(row).toMatchObject({ status: 'sent', attempts: 1, recipient: m.to, account_id: account.id, message_id: `<${m.id}@verify.example.eu>` });
      const [got] = received(m.id);
      expect(received(m.id)).toHaveLength(1);
      expect(got!.envelopeTo).toEqual([m.to]);
      expect(got!.parsed.subject).toBe(m.subject);
      expect(got!.parsed.text).toBe(m.text);
      expect(got!.parsed.html).toContain(`https://verify.example.eu/r/${m.id}`);

      const events = await history(m.id, token);
      expect(events.map((e) => e.type)).toEqual(['MailQueued', 'MailSendAttempted', 'MailSent']);
      expect(events[0]!.data).toMatchObject({ to: m.to, subject: m.subject, message_id: `<${m.id}@verify.example.eu>`, content_sha256: expect.stringMatching(/^[0-9a-f]{64}$/) });
      // The bodies (and the links in them) are in no event, and no longer stored once sent.
      expect(JSON.stringify((await t.service.deps.store.readStream(`mail-${m.id}`)).map((e) => e.data))).not.toContain('/r/');
      expect(await t.service.deps.blobs.exists(contentKey(m.id, events[0]!.data.content_sha256))).toBe(false);
      expect(events[0]!.metadata).toMatchObject({ account_id: account.id, actor: { type: 'user', id: user.id } });
      expect(events[2]!.metadata).toMatchObject({ account_id: account.id, actor: { type: 'system', id: 'mail-delivery' } });
      expect(events[2]!.data).toMatchObject({ attempt: 1, transport: 'smtp' });
      expect(events[2]!.data.response).toMatch(/^250 /);
    });

    it('queueMail twice with the same id sends one message and records one MailQueued', async () => {
      const { token, account } = await registerAccount(call);
      const m = mail(`twice-${counter}@example.eu`, account.id);
      await queueMail(t.service.deps, contextFor(account.id), m);
      await queueMail(t.service.deps, contextFor(account.id), { ...m, subject: 'a different subject' });
      await finished(m.id);
      await queueMail(t.service.deps, contextFor(account.id), m); // after delivery too
      await t.settled();
      expect(received(m.id)).toHaveLength(1);
      expect(received(m.id)[0]!.parsed.subject).toBe(m.subject);
      expect((await history(m.id, token)).map((e) => e.type)).toEqual(['MailQueued', 'MailSendAttempted', 'MailSent']);
    });

    it('a receiver refusing the first two attempts (451) gets the message once, on the third, after doubling back-off', async () => {
      const { token, account } = await registerAccount(call);
      const m = mail(`flaky2-${counter}@example.eu`, account.id);
      await queueMail(t.service.deps, contextFor(account.id), m);
      expect(await finished(m.id)).toMatchObject({ status: 'sent', attempts: 3 });
      expect(received(m.id)).toHaveLength(1);
      expect(rcptByAddress.get(m.to)).toBe(3);
      const events = await history(m.id, token);
      expect(events.map((e) => e.type)).toEqual(['MailQueued', 'MailSendAttempted', 'MailAttemptFailed', 'MailSendAttempted', 'MailAttemptFailed', 'MailSendAttempted', 'MailSent']);
      const failures = events.filter((e) => e.type === 'MailAttemptFailed').map((e) => e.data);
      expect(failures.map((f) => f.smtp_code)).toEqual([451, 451]);
      expect(failures[0]!.error).toContain('451');
      // 50 ms, then 100 ms: read from the schedule the events record, not from a clock.
      expect(failures.map((f) => Date.parse(f.retry_at) - Date.parse(f.failed_at))).toEqual([50, 100]);
      // No attempt started before its retry time.
      const starts = events.filter((e) => e.type === 'MailSendAttempted').map((e) => Date.parse(e.data.attempted_at));
      expect(starts[1]).toBeGreaterThanOrEqual(Date.parse(failures[0]!.retry_at));
      expect(starts[2]).toBeGreaterThanOrEqual(Date.parse(failures[1]!.retry_at));
      expect(events.at(-1)!.data).toMatchObject({ attempt: 3 });
    });

    it('a receiver that keeps refusing (451) ends in MailDeliveryFailed after the last attempt, visible in the audit history to the owner only', async () => {
      const { token, account } = await registerAccount(call);
      const m = mail(`down-${counter}@example.eu`, account.id);
      await queueMail(t.service.deps, contextFor(account.id), m);
      expect(await finished(m.id)).toMatchObject({ status: 'failed', attempts: 3 });
      expect(received(m.id)).toHaveLength(0);
      const events = await history(m.id, token);
      expect(events.map((e) => e.type)).toEqual(['MailQueued', 'MailSendAttempted', 'MailAttemptFailed', 'MailSendAttempted', 'MailAttemptFailed', 'MailSendAttempted', 'MailDeliveryFailed']);
      expect(events.at(-1)!.data).toMatchObject({ attempts: 3, reason: 'attempts_exhausted', smtp_code: 451 });
      // The reply code and enhanced status, not the server's own words (D-089).
      expect(events.at(-1)!.data.error).toMatch(/451 4\.3\.0 refused for now/);

      const streams = await call('GET', '/v1/audit/streams', { token });
      expect(streams.body.items.map((s: { stream: string }) => s.stream)).toContain(`mail-${m.id}`);
      const other = await registerAccount(call);
      expect((await call('GET', `/v1/audit/streams/mail-${m.id}`, { token: other.token })).status).toBe(404);
    });

    it('a recipient refused with 550 fails at once: one attempt, reason rejected', async () => {
      const { token, account } = await registerAccount(call);
      const m = mail(`nobody-${counter}@example.eu`, account.id);
      await queueMail(t.service.deps, contextFor(account.id), m);
      expect(await finished(m.id)).toMatchObject({ status: 'failed', attempts: 1 });
      const events = await history(m.id, token);
      expect(events.map((e) => e.type)).toEqual(['MailQueued', 'MailSendAttempted', 'MailDeliveryFailed']);
      expect(events.at(-1)!.data).toMatchObject({ attempts: 1, reason: 'rejected', smtp_code: 550 });
    });

    it('refuses an id unusable as a Message-ID and a recipient that is not one address, recording nothing', async () => {
      const before = await t.eventCount();
      for (const bad of [{ id: 'has space' }, { id: '<x>' }, { to: 'two@example.eu, three@example.eu' }, { to: 'Name <x@example.eu>' }, { to: 'not-an-address' }]) {
        const error = await queueMail(t.service.deps, contextFor(null), { ...mail('ok@example.eu', null), ...bad }).catch((e: unknown) => e);
        expect(error).toBeInstanceOf(AppError);
        expect((error as AppError).code).toBe('VALIDATION_ERROR');
      }
      expect(await t.eventCount()).toBe(before);
    });
  });
}

describe('mail delivery to the file outbox (no SMTP_URL)', () => {
  let t: TestService;
  beforeAll(async () => {
    t = await startTestService(databaseTargets[0]!, { MAIL_FROM: 'PhotoVerify <no-reply@verify.example.eu>' });
  });
  afterAll(async () => t?.stop());

  it('writes DATA_DIR/outbox/<Message-ID>.eml and records MailSent with transport outbox', async () => {
    const ctx = systemContext(t.service.deps, { actor: { type: 'system', id: 'test' }, correlationId: 'outbox', accountId: null });
    await queueMail(t.service.deps, ctx, { id: 'outbox-1', to: 'judge@example.eu', subject: 'Hello', text: 'Plain part', html: '<p>HTML part</p>', accountId: null });
    let row: MailMessageRow | undefined;
    for (let i = 0; i < 1500 && row?.status !== 'sent'; i++) {
      row = await findMailMessage(t.service.deps.knex, 'outbox-1');
      if (row?.status !== 'sent') await new Promise((r) => setTimeout(r, 20));
    }
    expect(row?.status).toBe('sent');
    const file = path.join(t.dataDir, 'outbox', 'outbox-1@verify.example.eu.eml');
    const parsed = await simpleParser(fs.readFileSync(file));
    expect(parsed.messageId).toBe('<outbox-1@verify.example.eu>');
    expect(parsed.text?.trim()).toBe('Plain part');
    expect(parsed.html).toContain('<p>HTML part</p>');
    const events = await t.service.deps.store.readStream('mail-outbox-1');
    expect(events.map((e) => e.type)).toEqual(['MailQueued', 'MailSendAttempted', 'MailSent']);
    expect(events[2]!.data).toMatchObject({ transport: 'outbox' });
  });
});
