import crypto from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../../src/core/audit/canonical-json.js';
import { appendFacts } from '../../src/core/es/decider.js';
import { verificationEvents, verificationStream } from '../../src/features/verifications/events.js';
import { databaseTargets } from '../support/databases.js';
import { addMember, type Member } from '../support/members.js';
import { uploadImage } from '../support/service.js';
import { serviceSuite, type Account, type Call } from '../support/suite.js';

/**
 * The compliance export (issue 25, must-work 5) over HTTP: two accounts whose events interleave in
 * the log; each admin's export of the period holds only its own account's events (rows, counts,
 * chain heads), matches its signed summary (row count and SHA-256 of each file), and the summary's
 * signature checks with the published certificate. Members are refused; bad periods are 400.
 */
interface Row {
  event_id: string;
  stream: string;
  revision: number;
  type: string;
  processing_region: string;
  actor_type: string;
  actor_id: string;
  correlation_id: string;
  recorded_at: string;
  hash: string;
}

async function download(url: string, token: string, query: string): Promise<{ status: number; text: string; headers: Headers }> {
  const response = await fetch(`${url}/v1/compliance/events?${query}`, { headers: { authorization: `Bearer ${token}` } });
  return { status: response.status, text: await response.text(), headers: response.headers };
}

async function streamsOf(call: Call, account: Account): Promise<Set<string>> {
  const res = await call('GET', '/v1/audit/streams?size=100', { token: account.token });
  expect(res.status).toBe(200);
  return new Set((res.body.items as { stream: string }[]).map((s) => s.stream));
}

for (const target of databaseTargets) {
  describe(`compliance export (${target.name})`, () => {
    const { t, call, newAccount } = serviceSuite(target);
    const alpha = newAccount();
    const beta = newAccount();
    let member: Member;
    let from: string;
    let to: string;
    const alphaRequests: string[] = [];
    const betaRequests: string[] = [];
    let alphaVerification: string;
    let betaVerification: string;

    const period = () => `from=${encodeURIComponent(from)}&to=${encodeURIComponent(to)}`;

    it('two accounts record interleaved events: keys, tags, image-only verifications (workflow events included)', { timeout: 5 * 60_000 }, async () => {
      from = new Date(Date.now() - 1000).toISOString();
      member = await addMember(call, alpha);
      for (let round = 0; round < 2; round++) {
        for (const [account, ids] of [[alpha, alphaRequests], [beta, betaRequests]] as const) {
          // A correlation id that begins with '-' is a formula to a spreadsheet: the CSV must neutralise it.
          const id = `-${account === alpha ? 'alpha' : 'beta'}-${round}-${crypto.randomUUID()}`;
          ids.push(id);
          const created = await call('POST', '/v1/apikeys/', { token: account.token, json: { account_id: account.account.id, description: `round ${round}` }, headers: { 'x-request-id': id } });
          expect(created.status, JSON.stringify(created.body)).toBe(201);
          expect(created.headers.get('x-request-id')).toBe(id);
        }
      }
      alphaVerification = await uploadImage(t.url, alpha.token);
      betaVerification = await uploadImage(t.url, beta.token);
      for (const [account, id] of [[alpha, alphaVerification], [beta, betaVerification]] as const) {
        for (const giveUpAt = Date.now() + 4 * 60_000; Date.now() < giveUpAt; await new Promise((r) => setTimeout(r, 250))) {
          const res = await call('GET', `/v1/verifications/${id}`, { token: account.token });
          if (res.body.status === 'completed' || res.body.status === 'failed') break;
        }
      }
      await t.settled();
      to = new Date().toISOString();
    });

    it("an admin's JSON Lines export holds every event of the account's streams in the period, and nothing of the other account", async () => {
      const res = await download(t.url, alpha.token, period());
      expect(res.status, res.text).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^application\/x-ndjson/);
      expect(res.headers.get('content-disposition')).toMatch(/^attachment; filename="events-.*\.jsonl"$/);
      const rows = res.text.trimEnd().split('\n').map((line) => JSON.parse(line) as Row);
      const mine = await streamsOf(call, alpha);
      const theirs = await streamsOf(call, beta);
      const streams = new Set(rows.map((r) => r.stream));
      expect(streams.has(`verification-${alphaVerification}`)).toBe(true);
      expect([...streams].filter((s) => !mine.has(s))).toEqual([]);
      expect([...streams].filter((s) => theirs.has(s))).toEqual([]);
      expect(res.text).not.toContain(betaVerification);
      expect(res.text).not.toContain(beta.account.id);
      for (const id of betaRequests) expect(res.text).not.toContain(id);
      // The requests' own correlation ids, and the workflow's events of the verification (the system acting for the upload).
      for (const id of alphaRequests) expect(rows.some((r) => r.correlation_id === id)).toBe(true);
      const verification = rows.filter((r) => r.stream === `verification-${alphaVerification}`);
      expect(verification.some((r) => r.actor_type === 'system')).toBe(true);
      // Every event of the verification's stream, in stream order, each with its hash-chain link as the audit history shows it.
      const history = await call('GET', `/v1/audit/streams/verification-${alphaVerification}`, { token: alpha.token });
      expect(verification.map((r) => [r.revision, r.type, r.hash])).toEqual(history.body.events.map((e: { revision: number; type: string; hash: string }) => [e.revision, e.type, e.hash]));
      expect(rows.every((r) => r.processing_region === 'eu-central-1' && /^[0-9a-f]{64}$/.test(r.hash))).toBe(true);
      // In the order the log recorded them.
      expect(rows.map((r) => r.recorded_at)).toEqual(rows.map((r) => r.recorded_at).sort());
    });

    it('the signed summary counts exactly the exported rows, names the chain heads of the account only, shows EU-only processing, and its signature checks', async () => {
      const res = await call('GET', `/v1/compliance/summary?${period()}`, { token: alpha.token });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      const { summary, signature } = res.body;
      const jsonl = await download(t.url, alpha.token, period());
      const csv = await download(t.url, alpha.token, `${period()}&format=csv`);
      const rows = jsonl.text.trimEnd().split('\n').map((line) => JSON.parse(line) as Row);
      expect(summary.event_count).toBe(rows.length);
      expect(summary.files['events.jsonl']).toEqual({ sha256: crypto.createHash('sha256').update(jsonl.text).digest('hex'), rows: rows.length });
      expect(summary.files['events.csv']).toEqual({ sha256: crypto.createHash('sha256').update(csv.text).digest('hex'), rows: rows.length });
      expect(summary.counts_by_region).toEqual({ 'eu-central-1': rows.length });
      const byType: Record<string, number> = {};
      for (const row of rows) byType[row.type] = (byType[row.type] ?? 0) + 1;
      expect(summary.counts_by_type).toEqual(byType);
      expect(summary.first_event).toMatchObject({ event_id: rows[0]!.event_id, hash: rows[0]!.hash });
      expect(summary.last_event).toMatchObject({ event_id: rows.at(-1)!.event_id, hash: rows.at(-1)!.hash });
      expect(summary.processing).toMatchObject({ configured_region: 'eu-central-1', eu_only: true, events_outside_eu: 0 });
      expect(new RegExp(summary.processing.eu_region_rule).test('us-east-1')).toBe(false);
      // Chain heads: one per stream of the period, its last event before `to`; none of the other account's.
      const lastOfStream = new Map<string, Row>();
      for (const row of rows) if ((lastOfStream.get(row.stream)?.revision ?? -1) < row.revision) lastOfStream.set(row.stream, row);
      expect(Object.fromEntries(summary.chain_heads.map((h: Row) => [h.stream, [h.revision, h.hash]]))).toEqual(Object.fromEntries([...lastOfStream].map(([s, r]) => [s, [r.revision, r.hash]])));
      const theirs = await streamsOf(call, beta);
      expect(summary.chain_heads.filter((h: Row) => theirs.has(h.stream))).toEqual([]);
      expect(summary.account_id).toBe(alpha.account.id);

      // ES256 over the canonical JSON of the summary, checked with the certificate it names.
      expect(signature.algorithm).toBe('ES256');
      expect(signature.signed).toBe(canonicalJson(summary));
      const certificate = new crypto.X509Certificate(signature.certificate_chain[0]);
      const verify = (bytes: string) => crypto.verify('sha256', Buffer.from(bytes, 'utf8'), { key: certificate.publicKey, dsaEncoding: 'ieee-p1363' }, Buffer.from(signature.value, 'base64'));
      expect(verify(signature.signed)).toBe(true);
      expect(verify(signature.signed.replace('"events_outside_eu":0', '"events_outside_eu":1'))).toBe(false);
    });

    it("the other account's export and summary hold its own events only", async () => {
      const res = await download(t.url, beta.token, period());
      expect(res.status).toBe(200);
      const mine = await streamsOf(call, beta);
      const rows = res.text.trimEnd().split('\n').map((line) => JSON.parse(line) as Row);
      expect(rows.length).toBeGreaterThan(0);
      expect(rows.filter((r) => !mine.has(r.stream))).toEqual([]);
      expect(res.text).not.toContain(alphaVerification);
      for (const id of alphaRequests) expect(res.text).not.toContain(id);
      const summary = (await call('GET', `/v1/compliance/summary?${period()}`, { token: beta.token })).body.summary;
      expect(summary.event_count).toBe(rows.length);
      expect(summary.chain_heads.every((h: Row) => mine.has(h.stream))).toBe(true);
    });

    it('CSV: RFC 4180 lines with a header, formula-like cells neutralised with a leading apostrophe', async () => {
      const res = await download(t.url, alpha.token, `${period()}&format=csv`);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^text\/csv/);
      const lines = res.text.split('\r\n');
      expect(lines.at(-1)).toBe('');
      expect(lines[0]).toBe('event_id,stream,revision,type,processing_region,actor_type,actor_id,correlation_id,causation_id,occurred_at,recorded_at,position,hash');
      const request = alphaRequests[0]!;
      const line = lines.find((l) => l.includes(request))!;
      expect(line.split(',')[7]).toBe(`'${request}`);
      expect(res.text).not.toMatch(/(^|,)-alpha-/m);
    });

    it('a member of the account is refused (403 ACCESS_DENIED), on both; an anonymous call 401', async () => {
      const events = await call('GET', `/v1/compliance/events?${period()}`, { token: member.token });
      expect(events.status).toBe(403);
      expect(events.body.detail.error_code).toBe('ACCESS_DENIED');
      const summary = await call('GET', `/v1/compliance/summary?${period()}`, { token: member.token });
      expect(summary.status).toBe(403);
      expect(summary.body.detail.error_code).toBe('ACCESS_DENIED');
      expect((await call('GET', `/v1/compliance/summary?${period()}`)).status).toBe(401);
    });

    it('periods: inverted, longer than 366 days or ending in the future are 400 VALIDATION_ERROR; a malformed instant 422', async () => {
      const now = Date.now();
      const iso = (ms: number) => new Date(ms).toISOString();
      const day = 24 * 60 * 60_000;
      for (const [f, tt] of [
        [iso(now - day), iso(now - 2 * day)],
        [iso(now - day), iso(now - day)],
        [iso(now - 367 * day - 1000), iso(now - 1000)],
        [iso(now - day), iso(now + day)],
      ]) {
        const res = await call('GET', `/v1/compliance/summary?from=${encodeURIComponent(f!)}&to=${encodeURIComponent(tt!)}`, { token: alpha.token });
        expect(res.status, `${f} → ${tt}: ${JSON.stringify(res.body)}`).toBe(400);
        expect(res.body.detail.error_code).toBe('VALIDATION_ERROR');
      }
      expect((await call('GET', `/v1/compliance/summary?from=yesterday&to=${encodeURIComponent(iso(now))}`, { token: alpha.token })).status).toBe(422);
      // A period before the account existed: a zero summary.
      const empty = await call('GET', `/v1/compliance/summary?from=${encodeURIComponent(iso(now - 366 * day - 60_000))}&to=${encodeURIComponent(iso(now - 365 * day))}`, { token: alpha.token });
      expect(empty.status).toBe(200);
      expect(empty.body.summary).toMatchObject({ event_count: 0, first_event: null, last_event: null, chain_heads: [], counts_by_region: {} });
    });

    it('a period is chosen by the time each event’s hash covers (metadata.occurred_at), not by the store’s recorded_at (issue 35)', async () => {
      // Recorded now by the database's clock, but it occurred (the time its hash covers) 200 days ago.
      const day = 24 * 60 * 60_000;
      const occurred = new Date(Date.now() - 200 * day);
      const id = crypto.randomUUID();
      const file = { blob_key: `verifications/${id}/a.jpg`, filename: 'a.jpg', format: 'JPEG', content_type: 'image/jpeg', size: 1, sha256: 'a'.repeat(64), sha512: 'b'.repeat(128) };
      const context = { accountId: alpha.account.id, actor: { type: 'system' as const, id: 'test' }, correlationId: id, causationId: id, processingRegion: 'eu-central-1', now: occurred };
      const { position } = await appendFacts(t.service.deps.store, verificationStream(id), verificationEvents, [
        { type: 'VerificationQueued', data: { verification_id: id, account_id: alpha.account.id, mode: 'image_only', name: 'a.jpg', short_code: 'L-PERIOD', pipeline_build: 'test', image: file, raw: null, queued_at: occurred.toISOString(), anonymous: false, capture: null, billing: { counted: false, overage: false, price_eur: 0 } } },
      ], context);
      expect(await t.service.deps.readModels.waitFor(position, 30_000)).toBe(true);
      const around = `from=${encodeURIComponent(new Date(occurred.getTime() - day).toISOString())}&to=${encodeURIComponent(new Date(occurred.getTime() + day).toISOString())}`;
      const then = await download(t.url, alpha.token, `${around}&format=jsonl`);
      expect(then.status).toBe(200);
      expect(then.text.trim().split('\n').filter(Boolean).map((line) => JSON.parse(line).stream)).toEqual([verificationStream(id)]);
      const recent = `from=${encodeURIComponent(new Date(Date.now() - day).toISOString())}&to=${encodeURIComponent(new Date(Date.now() - 1000).toISOString())}`;
      const now = await download(t.url, alpha.token, `${recent}&format=jsonl`);
      expect(now.text).not.toContain(verificationStream(id));
    });
  });
}
