import crypto from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { publicSendError, publicSendResponse } from '../../src/features/mail/public-text.js';
import { databaseTargets } from '../support/databases.js';
import { registerAccount } from '../support/service.js';
import { serviceSuite } from '../support/suite.js';

type AuditEvent = { type: string; data: Record<string, unknown> };

/** Issue 21, defect 13: the audit history showed members the server's outbox path ("written to /…/outbox/…"). */
for (const target of databaseTargets) {
  describe(`mail events in the audit history on ${target.name}`, () => {
    const { t, call } = serviceSuite(target);

    /** Invites a user (the invitation is mailed through the file outbox) and returns the mail stream's events. */
    async function invitationMail(admin: Awaited<ReturnType<typeof registerAccount>>): Promise<{ stream: string; events: AuditEvent[]; text: string }> {
      const invited = await call('POST', `/v1/accounts/${admin.account.id}/users`, { token: admin.token, json: { email: `inv-${crypto.randomUUID()}@org.example`, name: 'Ines', role: 'member' } });
      expect(invited.status).toBe(201);
      await t.settled();
      const streams = await call('GET', '/v1/audit/streams?size=100', { token: admin.token });
      const stream = (streams.body.items as { stream: string }[]).map((s) => s.stream).find((s) => s.startsWith('mail-'));
      if (!stream) throw new Error(`no mail stream among ${JSON.stringify(streams.body.items)}`);
      const history = await call('GET', `/v1/audit/streams/${stream}`, { token: admin.token });
      expect(history.status).toBe(200);
      return { stream, events: history.body.events, text: JSON.stringify(history.body) };
    }

    it('records a delivery to the outbox by file name only, nothing of the server’s file system', async () => {
      const admin = await registerAccount(call);
      const { events, text } = await invitationMail(admin);
      const sent = events.find((e) => e.type === 'MailSent');
      expect(sent?.data).toMatchObject({ transport: 'outbox' });
      expect(sent!.data.response).toMatch(/^written to the outbox as [^/\\]+\.eml$/);
      expect(text).not.toContain(t.dataDir);
      expect(text).not.toMatch(/\/outbox\//);
    });

    it('shows events recorded before the change without the path, the host or the address they named', async () => {
      const admin = await registerAccount(call);
      const { stream, events } = await invitationMail(admin);
      const stored = await t.service.deps.store.readStream(stream);
      const last = stored.at(-1)!;
      const mailId = stream.slice('mail-'.length);
      const legacy = (type: string, data: Record<string, unknown>) => ({ id: crypto.randomUUID(), type, version: 1, data: { mail_id: mailId, ...data }, metadata: { ...last.metadata, occurred_at: new Date().toISOString() } });
      const at = new Date().toISOString();
      await t.service.deps.store.append(
        stream,
        [
          legacy('MailAttemptFailed', { attempt: 2, error: "outbox: ENOTDIR: not a directory, mkdir '/srv/photoverify/data/outbox'", smtp_code: null, failed_at: at, retry_at: at }),
          legacy('MailAttemptFailed', { attempt: 3, error: 'ECONNECTION: connect ECONNREFUSED 10.20.30.40:25 (smtp.corp.internal)', smtp_code: null, failed_at: at, retry_at: at }),
          legacy('MailSent', { attempt: 4, transport: 'outbox', response: `written to ${t.dataDir}/outbox/legacy-1@verify.example.eu.eml`, sent_at: at }),
        ],
        { expectedRevision: last.revision },
      );
      await t.settled();
      const history = await call('GET', `/v1/audit/streams/${stream}`, { token: admin.token });
      expect(history.status).toBe(200);
      const shown = (history.body.events as AuditEvent[]).slice(events.length);
      expect(shown.map((e) => e.data.error ?? e.data.response)).toEqual([
        'outbox: the message could not be written (ENOTDIR)',
        'ECONNECTION: could not connect to the mail server',
        'written to the outbox as legacy-1@verify.example.eu.eml',
      ]);
      for (const secret of [t.dataDir, '/srv/photoverify', '10.20.30.40', 'corp.internal']) expect(JSON.stringify(history.body)).not.toContain(secret);
    });
  });
}

describe('what mail events say of a send', () => {
  it('keeps the SMTP reply code and enhanced status, not the host names, ids or queue ids around them', () => {
    const exchange = '250 2.6.0 <abc@verify.example.eu> [InternalId=1234567, Hostname=EX01.corp.internal] Queued mail for delivery';
    expect(publicSendResponse('smtp', exchange)).toBe('250 2.6.0 accepted');
    expect(publicSendResponse('smtp', '250 2.0.0 Ok: queued as 4F3C21B0 on mx7.corp.internal')).toBe('250 2.0.0 accepted');
    expect(publicSendResponse('smtp', '250 OK: message queued')).toBe('250 accepted');
    expect(publicSendError('EENVELOPE: 550 5.1.1 <nobody@example.eu>: Recipient address rejected by mx.corp.internal')).toBe(
      'EENVELOPE: 550 5.1.1 refused for good: a problem with the recipient or sender address',
    );
    expect(publicSendError('EMESSAGE: 451 4.3.0 Temporary failure at relay-3.corp.internal')).toBe('EMESSAGE: 451 4.3.0 refused for now: a problem with the receiving mail system');
    expect(publicSendError('ETIMEDOUT: Connection timeout to 192.168.7.7:587')).toBe('ETIMEDOUT: the mail server did not answer in time');
    expect(publicSendError('EDNS: getaddrinfo ENOTFOUND smtp.corp.internal')).toBe("EDNS: the mail server's name could not be resolved");
    expect(publicSendError('something odd at /opt/app/node_modules/x.js')).toBe('the send failed');
    expect(publicSendError('attempt 3 was interrupted before its outcome was recorded; no attempts left (last error: ECONNECTION: connect ECONNREFUSED 10.0.0.5:25)')).toBe(
      'attempt 3 was interrupted before its outcome was recorded; no attempts left (last error: ECONNECTION: could not connect to the mail server)',
    );
  });

  it('reads its own words back unchanged (the audit view applies it to new events too)', () => {
    const samples = [
      publicSendResponse('smtp', '250 2.6.0 <a@b> [Hostname=EX01.corp.internal] Queued'),
      publicSendResponse('outbox', '/data/outbox/x@y.eml'),
      publicSendError('EENVELOPE: 550 5.1.1 user unknown'),
      publicSendError('outbox: ENOSPC: no space left on device, write'),
      publicSendError('EAUTH: Invalid login: 535 5.7.8 Username and Password not accepted'),
      publicSendError('ECONNECTION: connect ECONNREFUSED 10.0.0.5:25'),
    ];
    expect(samples.map((s) => (s.startsWith('written') ? publicSendResponse('outbox', s) : /^\d/.test(s) ? publicSendResponse('smtp', s) : publicSendError(s)))).toEqual(samples);
  });
});
