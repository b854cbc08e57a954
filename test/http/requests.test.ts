import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { beforeAll, describe, expect, it } from 'vitest';
import type { ParsedUpload } from '../../src/core/blob-store.js';
import type { AppDeps } from '../../src/core/module/deps.js';
import { appendFacts } from '../../src/core/es/decider.js';
import { ABANDONED_AFTER_MS } from '../../src/features/requests/abandoned.js';
import { requestEvents, requestStream } from '../../src/features/requests/events.js';
import { submitToRequest } from '../../src/features/requests/index.js';
import { SUBMISSIONS_PER_ADDRESS_PER_HOUR, SUBMISSIONS_PER_TOKEN_PER_HOUR } from '../../src/features/requests/submissions.js';
import { SkewedClock } from '../support/clock.js';
import { databaseTargets } from '../support/databases.js';
import { waitFor } from '../support/poll.js';
import { registerAccount } from '../support/service.js';
import { serviceSuite, type Account } from '../support/suite.js';

/**
 * Verification requests over real HTTP (issue 24, must-work 1, 3-5; spec 2.7, 3.3, 4.1, 4.5), on
 * each database: every endpoint and error, the list's order, filter and bounds, closing, deletion,
 * the derived expiry and its durable timer (in-process engine, moved clock), and submissions
 * through a request's link (the use case the provider page calls, given a real staged upload):
 * counted under the cap also when concurrent, rate-limited, found by the `request_id` filter.
 */
const FIXTURES = path.resolve(import.meta.dirname, '../../../shared/fixtures');
const FIXTURE = path.join(FIXTURES, 'images/rs_sample1.webp');
// The 6D pair is small (0.4 MB RAW): one analysis stays cheap on two cores.
const PAIR = { image: path.join(FIXTURES, 'pairs/canon_eos_6d_dng/canon_eos_6d.preview.jpg'), raw: path.join(FIXTURES, 'pairs/canon_eos_6d_dng/canon_eos_6d.dng') };
const HOUR = 3_600_000;

/** A provider's upload of one image (the form the page posts), staged as the HTTP door stages it. */
function imageUpload(deps: AppDeps, fields: Record<string, string> = {}): () => Promise<ParsedUpload> {
  return async () => {
    const staged = await deps.blobs.stage(fs.createReadStream(FIXTURE), { maxBytes: deps.config.MAX_UPLOAD_BYTES });
    return { files: new Map([['image', { field: 'image', filename: 'entry.webp', staged }]]), fields };
  };
}

/** A provider's upload of a RAW+JPEG pair. */
function pairUpload(deps: AppDeps): () => Promise<ParsedUpload> {
  return async () => {
    const stage = (file: string) => deps.blobs.stage(fs.createReadStream(file), { maxBytes: deps.config.MAX_UPLOAD_BYTES });
    const files = new Map([
      ['image', { field: 'image', filename: 'entry.jpg', staged: await stage(PAIR.image) }],
      ['raw', { field: 'raw', filename: 'entry.dng', staged: await stage(PAIR.raw) }],
    ]);
    return { files, fields: {} };
  };
}

/** The error code a rejected promise carries, or 'ok'. */
const outcome = (p: Promise<unknown>) => p.then(() => 'ok', (error: { code?: string }) => error.code ?? String(error));

const inHours = (clockNow: Date, hours: number) => new Date(clockNow.getTime() + hours * HOUR).toISOString();

for (const target of databaseTargets) describe(`Verification requests on ${target.name}`, () => {
  const clock = new SkewedClock();
  const { t, call, newAccount } = serviceSuite(target, {}, { clock, workflowSweepMs: 200 });
  const owner = newAccount();
  const other = newAccount();

  const create = (account: Account, body: Record<string, unknown> = {}) =>
    call('POST', '/v1/requests', { token: account.token, json: { subject: 'Finalist photo', expires_at: inHours(clock.now(), 24), ...body } });
  async function created(account: Account = owner, body: Record<string, unknown> = {}) {
    const res = await create(account, body);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body as Record<string, any>;
  }
  const submit = (token: string, address = `198.51.100.${crypto.randomInt(1, 250)}`, fields: Record<string, string> = {}) =>
    submitToRequest(t.service.deps, token, { clientAddress: address, correlationId: crypto.randomUUID(), receive: imageUpload(t.service.deps, fields) });
  const types = async (id: string) => (await t.service.deps.store.readStream(requestStream(id))).map((e) => e.type);
  /**
   * What a process killed between counting a submission and recording its verification leaves:
   * a RequestSubmissionReceived for a verification that never was, as the request's `count`th;
   * answers that verification's id once the read models have it.
   */
  async function orphanSubmission(requestId: string, count: number): Promise<string> {
    const orphan = crypto.randomUUID();
    const now = clock.now();
    const context = { accountId: owner.account.id, actor: { type: 'anonymous' as const, id: requestId }, correlationId: orphan, causationId: orphan, processingRegion: 'eu', now };
    const { position } = await appendFacts(t.service.deps.store, requestStream(requestId), requestEvents, [
      { type: 'RequestSubmissionReceived', data: { verification_id: orphan, submission_count: count, received_at: now.toISOString() } },
    ], context);
    expect(await t.service.deps.readModels.waitFor(position, 30_000)).toBe(true);
    return orphan;
  }

  describe('create and read', () => {
    it('creates with the defaults, a 256-bit token and the provider page url; GET answers the same', async () => {
      const body = await created();
      expect(body).toMatchObject({
        subject: 'Finalist photo',
        instructions: '',
        mode: 'existing_original',
        status: 'open',
        closed_at: null,
        max_submissions: 1,
        submission_count: 0,
        share_with_provider: false,
      });
      expect(body.token).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(body.url).toBe(`${t.service.deps.config.PUBLIC_BASE_URL}/r/${body.token}`);
      const read = await call('GET', `/v1/requests/${body.id}`, { token: owner.token });
      expect(read.status).toBe(200);
      expect(read.body).toEqual(body);
      const second = await created();
      expect(second.token).not.toBe(body.token);
    });

    it('keeps every field given', async () => {
      const expires = inHours(clock.now(), 48);
      const body = await created(owner, { instructions: 'Original JPEG and RAW, please', max_submissions: 7, share_with_provider: true, mode: 'capture', expires_at: expires });
      expect(body).toMatchObject({ instructions: 'Original JPEG and RAW, please', max_submissions: 7, share_with_provider: true, mode: 'capture', expires_at: expires });
    });

    it('422 for invalid fields (list form) and for a deadline not in the future (envelope)', async () => {
      for (const [json, loc] of [
        [{ expires_at: inHours(clock.now(), 1) }, 'subject'],
        [{ subject: '' }, 'subject'],
        [{ max_submissions: 0 }, 'max_submissions'],
        [{ max_submissions: 1.5 }, 'max_submissions'],
        [{ mode: 'live' }, 'mode'],
        [{ share_with_provider: 'yes' }, 'share_with_provider'],
        [{ expires_at: 'tomorrow' }, 'expires_at'],
        [{ token: 'mine' }, 'token'],
      ] as const) {
        const res = await call('POST', '/v1/requests', { token: owner.token, json: { subject: 'S', expires_at: inHours(clock.now(), 1), ...json, ...(loc === 'subject' && !('subject' in json) ? { subject: undefined } : {}) } });
        expect(res.status, JSON.stringify(json)).toBe(422);
        expect(res.body.detail.map((d: { loc: string[] }) => d.loc.join('.'))).toContain(`body.${loc}`);
      }
      const past = await create(owner, { expires_at: new Date(clock.now().getTime() - 1000).toISOString() });
      expect([past.status, past.body.detail.error_code]).toEqual([422, 'VALIDATION_ERROR']);
      expect(past.body.detail.message).toContain('future');
    });

    it('400 ACCOUNT_NAME_REQUIRED when the account has no name', async () => {
      const nameless = await created(other); // named: fine
      expect(nameless.status).toBe('open');
      // No route lets a name be emptied; an account of an older registration may have none.
      await t.service.deps.knex('accounts').where({ id: other.account.id }).update({ name: '' });
      try {
        const res = await create(other);
        expect([res.status, res.body.detail.error_code]).toEqual([400, 'ACCOUNT_NAME_REQUIRED']);
      } finally {
        await t.service.deps.knex('accounts').where({ id: other.account.id }).update({ name: other.account.name });
      }
    });

    it('404 REQUEST_NOT_FOUND for an unknown request or another account’s; 422 for a malformed id', async () => {
      const mine = await created();
      for (const [id, token] of [[crypto.randomUUID(), owner.token], [mine.id, other.token]] as const) {
        for (const method of ['GET', 'PATCH', 'DELETE'] as const) {
          const res = await call(method, `/v1/requests/${id}`, { token, ...(method === 'PATCH' ? { json: { subject: 'x' } } : {}) });
          expect([res.status, res.body.detail.error_code], `${method} ${id}`).toEqual([404, 'REQUEST_NOT_FOUND']);
        }
      }
      expect((await call('GET', '/v1/requests/not-a-uuid', { token: owner.token })).status).toBe(422);
      expect((await call('GET', `/v1/requests/${mine.id}`)).status).toBe(401);
    });

    it('keeps the token out of the audit history', async () => {
      const body = await created();
      const history = await call('GET', `/v1/audit/streams/${requestStream(body.id)}`, { token: owner.token });
      expect(history.status).toBe(200);
      expect(history.body.events[0]).toMatchObject({ type: 'RequestCreated', data: { token: '[redacted]', token_sha256: '[redacted]' } });
      expect(JSON.stringify(history.body)).not.toContain(body.token);
    });
  });

  describe('list', () => {
    const lister = newAccount();
    let ids: string[];
    beforeAll(async () => {
      ids = [];
      for (let i = 0; i < 3; i += 1) ids.push((await created(lister, { subject: `Request ${i}` })).id);
    });

    it('newest first in the list envelope, paged by offset and size', async () => {
      const all = await call('GET', '/v1/requests', { token: lister.token });
      expect(all.status).toBe(200);
      expect(all.body).toMatchObject({ total: 3, offset: 0, size: 3, total_pages: 1 }); // size: the items returned (spec 2.9)
      expect(all.body.items.map((r: { id: string }) => r.id)).toEqual([...ids].reverse());
      expect(all.body.items[0].token).toMatch(/^[A-Za-z0-9_-]{43}$/);
      const page = await call('GET', '/v1/requests?offset=1&size=1', { token: lister.token });
      expect(page.body).toMatchObject({ total: 3, offset: 1, size: 1, total_pages: 3 });
      expect(page.body.items.map((r: { id: string }) => r.id)).toEqual([ids[1]]);
      const last = await call('GET', '/v1/requests?offset=2&size=2', { token: lister.token });
      expect(last.body).toMatchObject({ total: 3, offset: 2, size: 1, total_pages: 2 });
      expect((await call('GET', '/v1/requests?offset=5', { token: lister.token })).body).toMatchObject({ items: [], total: 3, size: 0 });
      expect((await call('GET', '/v1/requests', { token: other.token })).body.items.map((r: { id: string }) => r.id)).not.toContain(ids[0]);
    });

    it('422 for offset and size out of bounds and an unknown status', async () => {
      for (const query of ['offset=-1', 'size=0', 'size=101', 'size=', 'status=done', 'sort=subject']) {
        const res = await call('GET', `/v1/requests?${query}`, { token: lister.token });
        expect(res.status, query).toBe(422);
      }
      expect((await call('GET', '/v1/requests?size=100', { token: lister.token })).status).toBe(200);
    });

    it('filters by status: closed as recorded, open and expired by the clock', async () => {
      await call('PATCH', `/v1/requests/${ids[0]}`, { token: lister.token, json: { status: 'closed' } });
      const of = async (status: string) => (await call('GET', `/v1/requests?status=${status}`, { token: lister.token })).body.items.map((r: { id: string }) => r.id);
      expect(await of('closed')).toEqual([ids[0]]);
      expect(await of('open')).toEqual([ids[2], ids[1]]);
      expect(await of('expired')).toEqual([]);
    });
  });

  describe('change, close and delete', () => {
    it('changes fields and stamps updated_at; closing sets closed_at and is terminal', async () => {
      const body = await created();
      const changed = await call('PATCH', `/v1/requests/${body.id}`, { token: owner.token, json: { subject: 'Winner photo', max_submissions: 3, share_with_provider: true } });
      expect(changed.status).toBe(200);
      expect(changed.body).toMatchObject({ subject: 'Winner photo', max_submissions: 3, share_with_provider: true, status: 'open', closed_at: null, token: body.token });
      const closed = await call('PATCH', `/v1/requests/${body.id}`, { token: owner.token, json: { status: 'closed' } });
      expect(closed.status).toBe(200);
      expect(closed.body.status).toBe('closed');
      expect(Date.parse(closed.body.closed_at)).not.toBeNaN();
      const again = await call('PATCH', `/v1/requests/${body.id}`, { token: owner.token, json: { status: 'closed' } });
      expect(again.body.closed_at).toBe(closed.body.closed_at);
      const refused = await call('PATCH', `/v1/requests/${body.id}`, { token: owner.token, json: { subject: 'Reopened?' } });
      expect([refused.status, refused.body.detail.error_code]).toEqual([422, 'VALIDATION_ERROR']);
      expect(refused.body.detail.message).toContain('terminal');
      expect((await call('GET', `/v1/requests/${body.id}`, { token: owner.token })).body).toEqual(closed.body);
      expect(await types(body.id)).toEqual(['RequestCreated', 'RequestUpdated', 'RequestClosed']);
    });

    it('422 for an invalid change', async () => {
      const body = await created();
      for (const json of [{ status: 'open' }, { status: 'expired' }, { max_submissions: 0 }, { subject: '' }, { expires_at: 'soon' }, { token: 'x' }, { closed_at: null }, { mode: 'capture' }]) {
        const res = await call('PATCH', `/v1/requests/${body.id}`, { token: owner.token, json });
        expect(res.status, JSON.stringify(json)).toBe(422);
        expect(Array.isArray(res.body.detail), JSON.stringify(json)).toBe(true);
      }
      const past = await call('PATCH', `/v1/requests/${body.id}`, { token: owner.token, json: { expires_at: new Date(clock.now().getTime() - 60_000).toISOString() } });
      expect([past.status, past.body.detail.error_code]).toEqual([422, 'VALIDATION_ERROR']);
      expect(await types(body.id)).toEqual(['RequestCreated']);
    });

    it('deletes a request without submissions (204; then 404, its link dead); 409 with one', async () => {
      const body = await created();
      const res = await call('DELETE', `/v1/requests/${body.id}`, { token: owner.token });
      expect(res.status).toBe(204);
      expect((await call('GET', `/v1/requests/${body.id}`, { token: owner.token })).status).toBe(404);
      expect((await call('DELETE', `/v1/requests/${body.id}`, { token: owner.token })).status).toBe(404);
      expect(await outcome(submit(body.token))).toBe('REQUEST_NOT_FOUND');

      const answered = await created();
      expect(await outcome(submit(answered.token))).toBe('ok');
      const refused = await call('DELETE', `/v1/requests/${answered.id}`, { token: owner.token });
      expect([refused.status, refused.body.detail.error_code]).toEqual([409, 'REQUEST_HAS_SUBMISSIONS']);
      expect((await call('GET', `/v1/requests/${answered.id}`, { token: owner.token })).status).toBe(200);
    });
  });

  describe('submissions', () => {
    it('a submission is a verification of the requester with request_id, counted, found by the list filter', async () => {
      const body = await created(owner, { max_submissions: 2 });
      const submitted = await submit(body.token);
      expect(submitted).toMatchObject({ request_id: body.id, share_with_provider: false });
      const verification = await call('GET', `/v1/verifications/${submitted.verification_id}`, { token: owner.token });
      expect(verification.status).toBe(200);
      expect(verification.body).toMatchObject({ account_id: owner.account.id, request_id: body.id });
      expect((await call('GET', `/v1/requests/${body.id}`, { token: owner.token })).body.submission_count).toBe(1);
      const listed = await call('GET', `/v1/verifications/?request_id=${body.id}`, { token: owner.token });
      expect(listed.status).toBe(200);
      expect(listed.body.items.map((v: { id: string }) => v.id)).toEqual([submitted.verification_id]);
      expect(listed.body.items[0].request_id).toBe(body.id);
      expect(listed.body.total).toBe(1);
      // Not another account's view of it, and not verifications uploaded otherwise.
      expect((await call('GET', `/v1/verifications/?request_id=${body.id}`, { token: other.token })).body.items).toEqual([]);
      expect((await call('GET', `/v1/verifications/?request_id=${crypto.randomUUID()}`, { token: owner.token })).body.items).toEqual([]);
      const unfiltered = (await call('GET', '/v1/verifications/?size=100', { token: owner.token })).body.items as { id: string; request_id: string | null }[];
      expect(unfiltered.find((v) => v.id === submitted.verification_id)?.request_id).toBe(body.id);
      expect((await call('GET', '/v1/verifications/?request_id=not-a-uuid', { token: owner.token })).status).toBe(422);
    });

    it('a pair submitted through a request is metered on the requester’s plan (the requester pays)', async () => {
      const { token: payerToken, account } = await registerAccount(call);
      const usage = async () => (await call('GET', `/v1/accounts/${account.id}/usage`, { token: payerToken })).body;
      expect((await usage()).included_used).toBe(0);
      const res = await call('POST', '/v1/requests', { token: payerToken, json: { subject: 'A pair', expires_at: inHours(clock.now(), 24) } });
      const submitted = await submitToRequest(t.service.deps, res.body.token, { clientAddress: '198.51.100.77', correlationId: crypto.randomUUID(), receive: pairUpload(t.service.deps) });
      await t.settled();
      expect(await usage()).toMatchObject({ plan: 'free', included_used: 1 });
      const verification = (await call('GET', `/v1/verifications/${submitted.verification_id}`, { token: payerToken })).body;
      expect(verification).toMatchObject({ account_id: account.id, request_id: res.body.id, verification_mode: 'raw_pair' });
    });

    it('refuses a full, a closed, an unknown request; a failed upload gives its place back', async () => {
      const full = await created(owner, { max_submissions: 1 });
      expect(await outcome(submit(full.token))).toBe('ok');
      expect(await outcome(submit(full.token))).toBe('REQUEST_FULL');
      const closed = await created();
      await call('PATCH', `/v1/requests/${closed.id}`, { token: owner.token, json: { status: 'closed' } });
      expect(await outcome(submit(closed.token))).toBe('REQUEST_CLOSED');
      expect(await outcome(submit('A'.repeat(43)))).toBe('REQUEST_NOT_FOUND');
      expect(await outcome(submit(`${full.token}x`))).toBe('REQUEST_NOT_FOUND');

      const capture = await created(owner, { mode: 'capture' });
      expect(await outcome(submit(capture.token))).toBe('VALIDATION_ERROR');
      await t.settled();
      expect((await call('GET', `/v1/requests/${capture.id}`, { token: owner.token })).body.submission_count).toBe(0);
      expect(await types(capture.id)).toEqual(['RequestCreated', 'RequestSubmissionReceived', 'RequestSubmissionWithdrawn']);
      // Withdrawn: the request can still be deleted.
      expect((await call('DELETE', `/v1/requests/${capture.id}`, { token: owner.token })).status).toBe(204);
    });

    it('gives back a place a crash left counted without its verification, 6 hours on, at the next use', async () => {
      const body = await created(owner, { max_submissions: 2 });
      const kept = await submit(body.token);
      const orphan = await orphanSubmission(body.id, 2);
      expect(await outcome(submit(body.token))).toBe('REQUEST_FULL');
      clock.advance(ABANDONED_AFTER_MS + 1_000);
      expect(await outcome(submit(body.token))).toBe('ok');
      const events = await t.service.deps.store.readStream(requestStream(body.id));
      const withdrawn = events.filter((e) => e.type === 'RequestSubmissionWithdrawn');
      expect(withdrawn.map((e) => [e.data.verification_id, e.data.reason])).toEqual([[orphan, 'ABANDONED']]);
      await t.settled();
      const listed = (await call('GET', `/v1/verifications/?request_id=${body.id}`, { token: owner.token })).body.items.map((v: { id: string }) => v.id);
      expect(listed).toContain(kept.verification_id);
      expect((await call('GET', `/v1/requests/${body.id}`, { token: owner.token })).body.submission_count).toBe(2);
    });

    it('gives back a place a crash left counted, 6 hours on, by the release sweep without waiting for a use', async () => {
      const body = await created(owner, { max_submissions: 3 });
      const kept = await submit(body.token);
      const orphan = await orphanSubmission(body.id, 2);
      const count = async () => (await call('GET', `/v1/requests/${body.id}`, { token: owner.token })).body.submission_count;
      expect(await count()).toBe(2);
      // Not yet abandoned: sweeps pass and keep it counted.
      const runs = () => t.service.deps.knex('workflow_runs').where({ type: 'requestSubmissionRelease', id: `request-submission-release-${orphan}` });
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      expect(await runs()).toHaveLength(0);
      clock.advance(ABANDONED_AFTER_MS + 1_000);
      const deadline = Date.now() + 90_000;
      while ((await count()) !== 1) {
        if (Date.now() > deadline) throw new Error('the sweep never withdrew the abandoned submission');
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
      const withdrawn = (await t.service.deps.store.readStream(requestStream(body.id))).filter((e) => e.type === 'RequestSubmissionWithdrawn');
      expect(withdrawn.map((e) => [e.data.verification_id, e.data.reason, e.metadata.actor.id])).toEqual([[orphan, 'ABANDONED', 'request-submission-release']]);
      // The real submission stays counted and listed.
      await t.settled();
      expect((await call('GET', `/v1/verifications/?request_id=${body.id}`, { token: owner.token })).body.items.map((v: { id: string }) => v.id)).toEqual([kept.verification_id]);
    });

    it('never passes max_submissions under concurrent uploads', async () => {
      const body = await created(owner, { max_submissions: 2 });
      const results = await Promise.all(Array.from({ length: 6 }, (_, i) => outcome(submit(body.token, `203.0.113.${i + 1}`))));
      expect(results.filter((r) => r === 'ok')).toHaveLength(2);
      // The others are refused as full (or, if they kept losing the race, as busy: never accepted).
      expect(results.filter((r) => r !== 'ok').every((r) => r === 'REQUEST_FULL' || r === 'SERVICE_UNAVAILABLE')).toBe(true);
      await t.settled();
      expect((await call('GET', `/v1/requests/${body.id}`, { token: owner.token })).body.submission_count).toBe(2);
      expect((await call('GET', `/v1/verifications/?request_id=${body.id}`, { token: owner.token })).body.total).toBe(2);
    });

    it('rate-limits uploads per client address and per link', async () => {
      const full = await created(owner, { max_submissions: 1 });
      expect(await outcome(submit(full.token, '192.0.2.1'))).toBe('ok');
      for (let i = 1; i < SUBMISSIONS_PER_ADDRESS_PER_HOUR; i += 1) expect(await outcome(submit(full.token, '192.0.2.1'))).toBe('REQUEST_FULL');
      expect(await outcome(submit(full.token, '192.0.2.1'))).toBe('RATE_LIMIT_EXCEEDED');

      const link = await created(owner, { max_submissions: 1 });
      for (let i = 0; i < SUBMISSIONS_PER_TOKEN_PER_HOUR; i += 1) await outcome(submit(link.token, `192.0.2.${100 + (i % 100)}`));
      expect(await outcome(submit(link.token, '192.0.2.250'))).toBe('RATE_LIMIT_EXCEEDED');
    });
  });

  describe('expiry', () => {
    it('expires at expires_at: derived at once, recorded by the durable timer, visible in the audit history; a later deadline opens it again', async () => {
      const body = await created(owner, { expires_at: inHours(clock.now(), 2) });
      expect(body.status).toBe('open');
      clock.advance(2 * HOUR + 1_000);
      const read = await call('GET', `/v1/requests/${body.id}`, { token: owner.token });
      expect(read.body.status).toBe('expired');
      const expiredIds = (await call('GET', '/v1/requests?status=expired&size=100', { token: owner.token })).body.items.map((r: { id: string }) => r.id);
      expect(expiredIds).toContain(body.id);
      expect((await call('GET', '/v1/requests?status=open&size=100', { token: owner.token })).body.items.map((r: { id: string }) => r.id)).not.toContain(body.id);
      expect(await outcome(submit(body.token))).toBe('REQUEST_EXPIRED');
      await waitFor(async () => (await types(body.id)).includes('RequestExpired'), 'the expiry to be recorded');
      const history = (await call('GET', `/v1/audit/streams/${requestStream(body.id)}`, { token: owner.token })).body.events;
      expect(history.at(-1)).toMatchObject({ type: 'RequestExpired', data: { expires_at: body.expires_at }, metadata: { account_id: owner.account.id, actor: { type: 'system' } } });

      const later = inHours(clock.now(), 1);
      const reopened = await call('PATCH', `/v1/requests/${body.id}`, { token: owner.token, json: { expires_at: later } });
      expect(reopened.body).toMatchObject({ status: 'open', expires_at: later });
      expect(await outcome(submit(reopened.body.token))).toBe('ok');
      clock.advance(HOUR + 1_000);
      await waitFor(async () => (await types(body.id)).filter((e) => e === 'RequestExpired').length === 2, 'the second deadline’s expiry');
      expect((await call('GET', `/v1/requests/${body.id}`, { token: owner.token })).body.status).toBe('expired');
    });

    it('records nothing for a request closed before its deadline', async () => {
      const body = await created(owner, { expires_at: inHours(clock.now(), 1) });
      await call('PATCH', `/v1/requests/${body.id}`, { token: owner.token, json: { status: 'closed' } });
      clock.advance(HOUR + 1_000);
      await sleep(1_500);
      expect((await call('GET', `/v1/requests/${body.id}`, { token: owner.token })).body.status).toBe('closed');
      expect(await types(body.id)).toEqual(['RequestCreated', 'RequestClosed']);
    });
  });
});
