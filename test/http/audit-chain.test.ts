import crypto from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { verifyChain, type ChainedEvent } from '../../src/core/audit/hash-chain.js';
import { databaseTargets } from '../support/databases.js';
import { uploadImage } from '../support/service.js';
import { serviceSuite, type Account } from '../support/suite.js';

/** An event as GET /v1/audit/streams/{stream} answers it. */
type AuditEvent = ChainedEvent & { redacted_fields: Record<string, string>; position: string; recorded_at: string };

/**
 * Issue 25, must-work 1: the audit history carries every event's hashes, and anyone can recompute
 * the whole chain from the answer alone with src/core/audit/hash-chain.ts (docs/audit.md), redacted
 * and rewritten fields included (given as the digests of their stored values).
 */
for (const target of databaseTargets) {
  describe(`the audit history's hash chain on ${target.name}`, () => {
    const { t, call, newAccount } = serviceSuite(target);
    const owner = newAccount();

    async function history(account: Account, stream: string): Promise<AuditEvent[]> {
      const res = await call('GET', `/v1/audit/streams/${stream}`, { token: account.token });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return res.body.events as AuditEvent[];
    }

    /** The chain checked from the answer alone: the shown data, with the redacted fields taken as their digests. */
    const checked = (events: AuditEvent[]) => verifyChain(events, (e) => (e as AuditEvent).redacted_fields);

    /** The same answer with one event changed: the check must name it. */
    function tampered(events: AuditEvent[], revision: number, change: (e: AuditEvent) => AuditEvent): AuditEvent[] {
      return events.map((e) => (e.revision === revision ? change(structuredClone(e)) : e));
    }

    it("recomputes every hash of a real verification's history from the answer", async () => {
      const id = await uploadImage(t.url, owner.token);
      let status = '';
      for (let i = 0; i < 600 && status !== 'completed' && status !== 'failed'; i++) {
        await sleep(100);
        status = (await call('GET', `/v1/verifications/${id}`, { token: owner.token })).body.status;
      }
      expect(status).toBe('completed');
      await t.settled();
      const events = await history(owner, `verification-${id}`);
      expect(events.length).toBeGreaterThan(2);
      expect(events[0]!.previous_hash).toBeNull();
      expect(checked(events)).toEqual({ ok: true, checked: events.length });
      // The hashes are the stored ones, not computed for the answer.
      const stored = await t.service.deps.store.readStream(`verification-${id}`);
      expect(events.map((e) => [e.content_hash, e.hash, e.previous_hash])).toEqual(stored.map((e) => [e.content_hash, e.hash, e.previous_hash]));

      const middle = Math.floor(events.length / 2);
      expect(checked(tampered(events, middle, (e) => ({ ...e, data: { ...e.data, injected: true } })))).toMatchObject({ ok: false, revision: middle });
      expect(checked(tampered(events, 1, (e) => ({ ...e, metadata: { ...(e.metadata as object), processing_region: 'us-east-1' } })))).toMatchObject({ ok: false, revision: 1 });
      expect(checked(events.filter((e) => e.revision !== middle))).toMatchObject({ ok: false, revision: middle + 1 });
    });

    it("checks a stream with redacted fields: a request's token, given as the digest of its stored value", async () => {
      const created = await call('POST', '/v1/requests', { token: owner.token, json: { subject: 'Chain', expires_at: new Date(Date.now() + 86_400_000).toISOString() } });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      await t.settled();
      const events = await history(owner, `request-${created.body.id}`);
      const first = events[0]!;
      expect(first.data).toMatchObject({ token: '[redacted]', token_sha256: '[redacted]' });
      expect(Object.keys(first.redacted_fields).sort()).toEqual(['token', 'token_sha256']);
      expect(JSON.stringify(events)).not.toContain(created.body.token);
      expect(checked(events)).toEqual({ ok: true, checked: events.length });
      // Without the digests, or with a forged one, the content hash does not match.
      expect(verifyChain(events)).toMatchObject({ ok: false, revision: 0 });
      const forged = tampered(events, 0, (e) => ({ ...e, redacted_fields: { ...e.redacted_fields, token: crypto.createHash('sha256').update('"guess"').digest('hex') } }));
      expect(checked(forged)).toMatchObject({ ok: false, revision: 0, reason: expect.stringContaining('content_hash') });
    });

    it("checks an API key's stream (the key hash redacted) and a mail stream whose older outcomes are rewritten for the public", async () => {
      const key = await call('POST', '/v1/apikeys/', { token: owner.token, json: { account_id: owner.account.id } });
      await call('DELETE', `/v1/apikeys/${key.body.id}`, { token: owner.token });
      const invited = await call('POST', `/v1/accounts/${owner.account.id}/users`, { token: owner.token, json: { email: `chain-${crypto.randomUUID()}@org.example`, name: 'Ines', role: 'member' } });
      expect(invited.status).toBe(201);
      await t.settled();

      const keyEvents = await history(owner, `apikey-${key.body.id}`);
      expect(keyEvents[0]!.redacted_fields).toHaveProperty('key_hash');
      expect(checked(keyEvents)).toEqual({ ok: true, checked: 2 });

      const streams = await call('GET', '/v1/audit/streams?size=100', { token: owner.token });
      const mail = (streams.body.items as { stream: string }[]).map((s) => s.stream).find((s) => s.startsWith('mail-'))!;
      // New mail events are stored as they are shown (D-089); those recorded before named server
      // paths and hosts, which the history rewrites: appended here as an older version wrote them.
      const stored = await t.service.deps.store.readStream(mail);
      const last = stored.at(-1)!;
      const at = new Date().toISOString();
      const legacy = (type: string, data: Record<string, unknown>) => ({ id: crypto.randomUUID(), type, version: 1, data: { mail_id: mail.slice('mail-'.length), ...data }, metadata: { ...last.metadata, occurred_at: at } });
      await t.service.deps.store.append(
        mail,
        [
          legacy('MailAttemptFailed', { attempt: 2, error: 'ECONNECTION: connect ECONNREFUSED 10.20.30.40:25 (smtp.corp.internal)', smtp_code: null, failed_at: at, retry_at: at }),
          legacy('MailSent', { attempt: 3, transport: 'outbox', response: `written to ${t.dataDir}/outbox/legacy-1@verify.example.eu.eml`, sent_at: at }),
        ],
        { expectedRevision: last.revision },
      );
      await t.settled();
      const mailEvents = await history(owner, mail);
      const [failed, sent] = mailEvents.slice(-2);
      expect(failed!.data.error).toBe('ECONNECTION: could not connect to the mail server');
      expect(sent!.data.response).toBe('written to the outbox as legacy-1@verify.example.eu.eml');
      expect(failed!.redacted_fields).toEqual({ error: expect.stringMatching(/^[0-9a-f]{64}$/) });
      expect(sent!.redacted_fields).toEqual({ response: expect.stringMatching(/^[0-9a-f]{64}$/) });
      expect(JSON.stringify(mailEvents)).not.toContain('10.20.30.40');
      expect(checked(mailEvents)).toEqual({ ok: true, checked: mailEvents.length });
      expect(verifyChain(mailEvents)).toMatchObject({ ok: false, revision: failed!.revision });
      // Events shown as stored carry no digests.
      expect(mailEvents.slice(0, -2).every((e) => Object.keys(e.redacted_fields).length === 0)).toBe(true);
    });
  });
}
