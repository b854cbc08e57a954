import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { simpleParser } from 'mailparser';
import { afterAll, describe, expect, it } from 'vitest';
import { OutboxMailer, outboxFileName } from '../../src/adapters/mail/outbox.js';
import { SmtpMailer } from '../../src/adapters/mail/smtp.js';
import { createMailer } from '../../src/adapters/mail/index.js';
import { MailSendError, messageIdFor, type MailMessage } from '../../src/core/mail.js';
import { freePort } from '../support/processes.js';
import { startSmtpReceiver } from '../support/smtp-receiver.js';

const message = (id = 'adapter-test-1'): MailMessage => ({
  messageId: messageIdFor(id, 'PhotoVerify <no-reply@verify.example.eu>'),
  from: 'PhotoVerify <no-reply@verify.example.eu>',
  to: 'judge@example.eu',
  subject: 'Anna Berg shared a verification with you — “Harbour at dawn”',
  text: 'Open the report: https://verify.example.eu/r/abc\n',
  html: '<p>Open <a href="https://verify.example.eu/r/abc">the report</a></p>',
  date: new Date('2026-03-01T12:00:00.000Z'),
});

describe('messageIdFor', () => {
  it("puts the sender's domain on the right", () => {
    expect(messageIdFor('abc-1', 'PhotoVerify <no-reply@verify.example.eu>')).toBe('<abc-1@verify.example.eu>');
    expect(messageIdFor('abc-1', 'no-reply@example.org')).toBe('<abc-1@example.org>');
    expect(messageIdFor('abc-1', 'PhotoVerify')).toBe('<abc-1@photoverify.local>');
  });

  it('refuses ids that cannot be part of a Message-ID', () => {
    expect(() => messageIdFor('a b', 'x@example.eu')).toThrow();
    expect(() => messageIdFor('<a>', 'x@example.eu')).toThrow();
  });
});

describe('outbox mailer', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pv-outbox-'));
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('writes one parseable .eml named by Message-ID, with text and HTML parts', async () => {
    const mailer = new OutboxMailer(dir);
    const m = message();
    const receipt = await mailer.send(m);
    const file = path.join(dir, 'adapter-test-1@verify.example.eu.eml');
    expect(receipt.response).toBe(`written to the outbox as ${path.basename(file)}`); // the name, never the directory (D-089)
    const raw = fs.readFileSync(file);
    expect(raw.includes('\r\n')).toBe(true); // RFC 5322 line ends
    const parsed = await simpleParser(raw);
    expect(parsed.messageId).toBe(m.messageId);
    expect(parsed.subject).toBe(m.subject);
    expect(parsed.from?.value).toEqual([{ name: 'PhotoVerify', address: 'no-reply@verify.example.eu' }]);
    expect((Array.isArray(parsed.to) ? parsed.to[0] : parsed.to)?.text).toBe('judge@example.eu');
    expect(parsed.text).toBe(m.text);
    expect(parsed.html).toContain('href="https://verify.example.eu/r/abc"');
    expect(parsed.date?.toISOString()).toBe('2026-03-01T12:00:00.000Z');
    expect(raw.toString()).toMatch(/Content-Type: multipart\/alternative/);
    await mailer.close();
  });

  it('a second attempt of the same message overwrites its file; no temporary file stays', async () => {
    const mailer = new OutboxMailer(dir);
    await mailer.send(message('again'));
    await mailer.send({ ...message('again'), subject: 'second rendering' });
    const files = fs.readdirSync(dir).filter((f) => f.startsWith('again'));
    expect(files).toEqual(['again@verify.example.eu.eml']);
    expect(fs.readdirSync(dir).filter((f) => f.endsWith('.tmp'))).toEqual([]);
    expect((await simpleParser(fs.readFileSync(path.join(dir, files[0]!)))).subject).toBe('second rendering');
  });

  it('file names keep to a safe alphabet', () => {
    expect(outboxFileName('<a/../b@x.eu>')).toBe('a_.._b@x.eu.eml');
  });

  it('an unwritable outbox is a transient failure', async () => {
    const blocker = path.join(dir, 'not-a-dir');
    fs.writeFileSync(blocker, '');
    const error = await new OutboxMailer(path.join(blocker, 'outbox')).send(message()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MailSendError);
    expect((error as MailSendError).permanent).toBe(false);
  });

  it('is the default without SMTP_URL, under DATA_DIR/outbox', () => {
    const mailer = createMailer({ SMTP_URL: undefined, DATA_DIR: dir });
    expect(mailer.kind).toBe('outbox');
    expect((mailer as OutboxMailer).dir).toBe(path.join(dir, 'outbox'));
  });
});

describe('SMTP mailer (in-process smtp-server)', () => {
  it('delivers the message with its Message-ID, envelope and both parts', async () => {
    const receiver = await startSmtpReceiver();
    const mailer = createMailer({ SMTP_URL: receiver.url, DATA_DIR: '/nonexistent' });
    expect(mailer.kind).toBe('smtp');
    const m = message('smtp-1');
    const receipt = await mailer.send(m);
    expect(receipt.response).toMatch(/^250 /);
    expect(receiver.messages).toHaveLength(1);
    const [got] = receiver.messages;
    expect(got!.messageId).toBe('<smtp-1@verify.example.eu>');
    expect(got!.envelopeTo).toEqual(['judge@example.eu']);
    expect(got!.parsed.subject).toBe(m.subject);
    expect(got!.parsed.text).toBe(m.text);
    expect(got!.parsed.html).toContain('https://verify.example.eu/r/abc');
    await mailer.close();
    await receiver.close();
  });

  it('a 5xx to RCPT TO is permanent; a 4xx is transient', async () => {
    const receiver = await startSmtpReceiver({ rcpt: (n) => (n === 1 ? { code: 550, message: 'no such user' } : { code: 451, message: 'try later' }) });
    const mailer = new SmtpMailer(receiver.url);
    const permanent = (await mailer.send(message()).catch((e: unknown) => e)) as MailSendError;
    expect(permanent).toBeInstanceOf(MailSendError);
    expect(permanent.details).toMatchObject({ permanent: true, responseCode: 550, command: 'RCPT TO' });
    expect(permanent.message).toContain('550');
    const transient = (await mailer.send(message()).catch((e: unknown) => e)) as MailSendError;
    expect(transient.details).toMatchObject({ permanent: false, responseCode: 451 });
    expect(receiver.messages).toHaveLength(0);
    await receiver.close();
  });

  it('a 5xx after DATA is permanent', async () => {
    const receiver = await startSmtpReceiver({ data: () => ({ code: 554, message: 'message refused' }) });
    const error = (await new SmtpMailer(receiver.url).send(message()).catch((e: unknown) => e)) as MailSendError;
    expect(error.details).toMatchObject({ permanent: true, responseCode: 554 });
    await receiver.close();
  });

  it('nobody listening is a transient failure', async () => {
    const error = (await new SmtpMailer(`smtp://127.0.0.1:${await freePort()}`).send(message()).catch((e: unknown) => e)) as MailSendError;
    expect(error).toBeInstanceOf(MailSendError);
    expect(error.details).toMatchObject({ permanent: false, responseCode: null });
    expect(error.message).toMatch(/ECONNREFUSED|ECONNECTION/);
  });

  it('an aborted send closes its connection before the end of DATA: nothing is received', async () => {
    const controller = new AbortController();
    const receiver = await startSmtpReceiver({
      rcpt: async () => {
        controller.abort();
        await new Promise((r) => setTimeout(r, 100));
        return undefined;
      },
    });
    const error = await new SmtpMailer(receiver.url).send(message(), { signal: controller.signal }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MailSendError);
    await new Promise((r) => setTimeout(r, 300));
    expect(receiver.messages).toHaveLength(0);
    await receiver.close();
  });
});
