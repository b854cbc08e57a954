import { beforeAll, describe, expect, it, vi } from 'vitest';
import { psdExportStream } from '../../src/features/psd-export/events.js';
import { databaseTargets } from '../support/databases.js';
import { serviceSuite } from '../support/suite.js';
import { Gate, seedVerification } from './psd-export-support.js';
import type { StubPsdDeps } from '../support/psd-stub.js';

/**
 * The PSD export over real HTTP (issue 23, must-work 2-4; spec 3.2, 4.1, 7, 8), on each database:
 * every error and limit, the long-poll, idempotency, concurrent requests and downloads, failure
 * and free regeneration, the audit history, metering once. The builder is a stub here (it stores
 * a small file at once, or waits for a gate, or refuses): the real file is built and checked by
 * its own suites; this one is about the lifecycle around it.
 */
const stub = vi.hoisted(() => ({ builds: new Map<string, number>(), gate: null as null | Promise<void>, refuse: new Set<string>() }));

vi.mock('../../src/features/psd-export/psd-file.js', async (importOriginal) => {
  const { AppError } = await import('../../src/core/errors.js');
  const { CANVAS_30D, storeStubPsd } = await import('../support/psd-stub.js');
  return {
    ...(await importOriginal<object>()),
    async buildPsdExport(deps: StubPsdDeps, verificationId: string, signal: AbortSignal) {
      stub.builds.set(verificationId, (stub.builds.get(verificationId) ?? 0) + 1);
      if (stub.gate) await stub.gate;
      signal.throwIfAborted();
      if (stub.refuse.has(verificationId)) throw new AppError('VALIDATION_ERROR', 'stub: this pair cannot be exported');
      return storeStubPsd(deps, verificationId, { canvas: CANVAS_30D });
    },
  };
});

const path = (id: string) => `/v1/verifications/${id}/psd-export`;

for (const target of databaseTargets) describe(`PSD export on ${target.name}`, () => {
  const { t, call, newAccount } = serviceSuite(target);
  const pro = newAccount({ plan: 'professional' });
  const basic = newAccount({ plan: 'basic' });
  const other = newAccount({ plan: 'professional' });

  const events = async (id: string) => (await t.service.deps.store.readStream(psdExportStream(id))).map((e) => e.type);
  const post = (id: string, token = pro.token, query = '') => call('POST', `${path(id)}${query}`, { token });

  describe('refusals', () => {
    let pair: string;
    beforeAll(async () => {
      pair = await seedVerification(t, pro.account.id);
    });

    it('404 VERIFICATION_NOT_FOUND for an unknown verification or another account’s', async () => {
      for (const [id, token] of [[crypto.randomUUID(), pro.token], [pair, other.token]] as const) {
        const res = await post(id, token);
        expect(res.status).toBe(404);
        expect(res.body.detail.error_code).toBe('VERIFICATION_NOT_FOUND');
      }
      expect(await events(pair)).toEqual([]);
    });

    it('404 PSD_EXPORT_NOT_FOUND when none was requested, or the verification is not yours', async () => {
      for (const [route, token] of [[path(pair), pro.token], [`${path(pair)}/download`, pro.token], [path(pair), other.token], [path(crypto.randomUUID()), pro.token]] as const) {
        const res = await call('GET', route, { token });
        expect(res.status, route).toBe(404);
        expect(res.body.detail.error_code).toBe('PSD_EXPORT_NOT_FOUND');
        expect(res.body.detail.suggestion).toContain('POST');
      }
    });

    it('409 VALIDATION_ERROR for an image-only verification and for one not completed', async () => {
      const imageOnly = await seedVerification(t, pro.account.id, 'image_only');
      const running = await seedVerification(t, pro.account.id, 'pair_in_progress');
      for (const [id, words] of [[imageOnly, 'image-only'], [running, 'in_progress']] as const) {
        const res = await post(id);
        expect(res.status).toBe(409);
        expect(res.body.detail).toMatchObject({ error_code: 'VALIDATION_ERROR' });
        expect(res.body.detail.message).toContain(words);
        expect(await events(id)).toEqual([]);
      }
    });

    it('403 NOT_ENTITLED below Professional, recording nothing', async () => {
      const mine = await seedVerification(t, basic.account.id);
      const res = await post(mine, basic.token);
      expect(res.status).toBe(403);
      expect(res.body.detail.error_code).toBe('NOT_ENTITLED');
      expect(await events(mine)).toEqual([]);
    });

    it('422 for a wait outside 0-20 seconds or not an integer', async () => {
      for (const wait of ['21', '-1', '1.5', 'soon', '']) {
        const res = await post(pair, pro.token, `?wait=${wait}`);
        expect(res.status, `wait=${wait}`).toBe(422);
        expect(res.body.detail[0].loc).toEqual(['query', 'wait']);
      }
      expect(await events(pair)).toEqual([]);
    });
  });

  describe('one export from request to downloads', () => {
    let pair: string;
    let gate: Gate;
    beforeAll(async () => {
      pair = await seedVerification(t, pro.account.id);
      gate = new Gate();
      stub.gate = gate.promise;
    });

    it('answers 202 queued or in progress at once, and 409 PSD_NOT_READY to a download meanwhile', async () => {
      const res = await post(pair);
      expect(res.status).toBe(202);
      expect(['queued', 'in_progress']).toContain(res.body.status);
      expect(res.body).toMatchObject({ downloads_used: 0, downloads_limit: 5, file_size_bytes: null, expires_at: null, error: null });
      const download = await call('GET', `${path(pair)}/download`, { token: pro.token });
      expect(download.status).toBe(409);
      expect(download.body.detail.error_code).toBe('PSD_NOT_READY');
    });

    it('a wait that runs out answers the export as it is (in progress)', async () => {
      const res = await post(pair, pro.token, '?wait=1');
      expect(res.status).toBe(202);
      expect(res.body.status).toBe('in_progress');
    });

    it('a long-poll returns as soon as the export completes, before its wait is over', async () => {
      const started = Date.now();
      const answer = post(pair, pro.token, '?wait=20');
      setTimeout(() => gate.open(), 300);
      const res = await answer;
      stub.gate = null;
      expect(res.status).toBe(202);
      expect(res.body).toMatchObject({ status: 'completed', file_size_bytes: expect.any(Number), canvas_width: 3504, canvas_height: 2336, downloads_used: 0, error: null });
      // Woken by the completion: a wait that ran out would have taken the full 20 s.
      expect(Date.now() - started).toBeLessThan(18_000);
      const completedAt = new Date(res.body.expires_at).getTime() - 30 * 86_400_000;
      expect(completedAt).toBeGreaterThanOrEqual(new Date(res.body.created_at).getTime());
    });

    it('is idempotent: a request now returns the export unchanged and builds nothing', async () => {
      const before = (await call('GET', path(pair), { token: pro.token })).body;
      const again = await post(pair, pro.token, '?wait=2');
      expect(again.status).toBe(202);
      expect(again.body).toEqual(before);
      expect(stub.builds.get(pair)).toBe(1);
      expect(await events(pair)).toEqual(['PsdExportRequested', 'PsdExportStarted', 'PsdExportCompleted']);
    });

    it('the Verification’s psd_export mirrors the status', async () => {
      const status = (await call('GET', path(pair), { token: pro.token })).body;
      const verification = (await call('GET', `/v1/verifications/${pair}`, { token: pro.token })).body;
      expect(verification.psd_export).toEqual(status);
      const listed = (await call('GET', `/v1/verifications/?search=${pair}`, { token: pro.token })).body.items;
      expect(listed[0].psd_export).toEqual(status);
    });

    it('a HEAD on the download of a ready export answers 204 without a URL and counts nothing', async () => {
      const head = await fetch(`${t.url}${path(pair)}/download`, { method: 'HEAD', headers: { authorization: `Bearer ${pro.token}` }, redirect: 'manual' });
      expect(head.status).toBe(204);
      expect(head.headers.get('location')).toBeNull();
      expect((await call('GET', path(pair), { token: pro.token })).body.downloads_used).toBe(0);
    });

    it('six concurrent downloads: exactly five redirect to a signed URL of the file, one is 403 DOWNLOAD_LIMIT_REACHED', async () => {
      const answers = await Promise.all(Array.from({ length: 6 }, () => call('GET', `${path(pair)}/download`, { token: pro.token })));
      const redirected = answers.filter((a) => a.status === 302);
      expect(redirected).toHaveLength(5);
      const refused = answers.filter((a) => a.status !== 302);
      expect(refused.map((a) => [a.status, a.body.detail.error_code])).toEqual([[403, 'DOWNLOAD_LIMIT_REACHED']]);
      const file = await fetch(redirected[0]!.headers.get('location')!);
      expect(file.status).toBe(200);
      expect(file.headers.get('content-type')).toBe('image/vnd.adobe.photoshop');
      expect(await file.text()).toBe(`8BPS stub export of ${pair}`);
      const status = (await call('GET', path(pair), { token: pro.token })).body;
      expect(status.downloads_used).toBe(5);
      expect((await events(pair)).filter((e) => e === 'PsdExportDownloaded')).toHaveLength(5);
      const after = await call('GET', `${path(pair)}/download`, { token: pro.token });
      expect([after.status, after.body.detail.error_code]).toEqual([403, 'DOWNLOAD_LIMIT_REACHED']);
    });

    it('a HEAD on the download once all are used answers 403 too, with no URL', async () => {
      const head = await fetch(`${t.url}${path(pair)}/download`, { method: 'HEAD', headers: { authorization: `Bearer ${pro.token}` }, redirect: 'manual' });
      expect(head.status).toBe(403);
      expect(head.headers.get('location')).toBeNull();
    });

    it('every step is in the verification’s audit history, owned by the account', async () => {
      const streams = (await call('GET', '/v1/audit/streams?size=100', { token: pro.token })).body.items.map((s: { stream: string }) => s.stream);
      expect(streams).toContain(psdExportStream(pair));
      const history = await call('GET', `/v1/audit/streams/${psdExportStream(pair)}`, { token: pro.token });
      expect(history.status).toBe(200);
      expect(history.body.events.map((e: { type: string }) => e.type)).toEqual(['PsdExportRequested', 'PsdExportStarted', 'PsdExportCompleted', ...Array(5).fill('PsdExportDownloaded')]);
      expect((await call('GET', `/v1/audit/streams/${psdExportStream(pair)}`, { token: other.token })).status).toBe(404);
    });

    it('is metered once, on completion', async () => {
      await t.settled();
      const all = await t.service.deps.store.readAll({ after: 0n, limit: 1_000_000 });
      const exportId = (await t.service.deps.store.readStream(psdExportStream(pair)))[0]!.data.export_id;
      expect(all.filter((e) => e.type === 'PsdExportMetered' && e.data.export_id === exportId)).toHaveLength(1);
    });
  });

  describe('concurrent requests', () => {
    it('make one export: every answer the same, one request recorded, one build, one charge', async () => {
      const pair = await seedVerification(t, pro.account.id);
      const answers = await Promise.all(Array.from({ length: 6 }, () => post(pair, pro.token, '?wait=10')));
      expect(answers.map((a) => a.status)).toEqual(Array(6).fill(202));
      expect(new Set(answers.map((a) => a.body.created_at)).size).toBe(1);
      await t.settled();
      expect((await events(pair)).filter((e) => e === 'PsdExportRequested')).toHaveLength(1);
      expect(stub.builds.get(pair)).toBe(1);
      const exportId = (await t.service.deps.store.readStream(psdExportStream(pair)))[0]!.data.export_id;
      const usage = (await t.service.deps.store.readAll({ after: 0n, limit: 1_000_000 })).filter((e) => e.type.startsWith('PsdExport') && e.stream.startsWith('usage-'));
      // Only the recorded export stays reserved and is charged; a reservation of a request that lost is given back.
      expect(usage.filter((e) => e.type === 'PsdExportMetered').map((e) => e.data.export_id)).toContain(exportId);
      const charged = usage.filter((e) => e.type === 'PsdExportMetered' && usage.some((r) => r.type === 'PsdExportReserved' && r.data.export_id === e.data.export_id && r.data.verification_id === pair));
      expect(charged).toHaveLength(1);
    });
  });

  describe('the budget edge under concurrent requests', () => {
    // Professional: 50 included, then 0.50 each; a 0.50 cap leaves room for exactly one more.
    const capped = newAccount({ plan: 'professional', monthly_budget_cap_eur: 0.5 });

    it('of 53 concurrent requests, exactly 51 pass (50 included + one at 0.50), 2 are 402 BUDGET_EXCEEDED; the usage shows them', async () => {
      const pairs: string[] = [];
      for (let i = 0; i < 53; i++) pairs.push(await seedVerification(t, capped.account.id));
      const answers = await Promise.all(pairs.map((id) => post(id, capped.token)));
      expect(answers.filter((a) => a.status === 202)).toHaveLength(51);
      const refused = answers.filter((a) => a.status !== 202);
      expect(refused.map((a) => [a.status, a.body.detail.error_code])).toEqual([[402, 'BUDGET_EXCEEDED'], [402, 'BUDGET_EXCEEDED']]);
      for (const [i, a] of answers.entries()) if (a.status === 402) expect(await events(pairs[i]!)).toEqual([]);
      await t.settled();
      const usage = (await call('GET', `/v1/accounts/${capped.account.id}/usage`, { token: capped.token })).body;
      expect(usage.psd_exports).toMatchObject({ entitled: true, included: 50, included_used: 50, included_remaining: 0, in_progress: 0, overage_count: 1, overage_amount: 0.5 });
      expect(usage.budget_remaining).toBe(0);
      // Requesting an existing export again is answered unchanged, never refused by the budget.
      const done = pairs[answers.findIndex((a) => a.status === 202)]!;
      expect((await post(done, capped.token)).status).toBe(202);
    });
  });

  describe('a failed export', () => {
    it('says why, is not ready for download, is never charged, and is regenerated free on request', async () => {
      const pair = await seedVerification(t, pro.account.id);
      stub.refuse.add(pair);
      const failed = await post(pair, pro.token, '?wait=20');
      expect(failed.body).toMatchObject({ status: 'failed', error: 'stub: this pair cannot be exported', file_size_bytes: null });
      const download = await call('GET', `${path(pair)}/download`, { token: pro.token });
      expect([download.status, download.body.detail.error_code, download.body.detail.suggestion]).toEqual([409, 'PSD_NOT_READY', expect.stringContaining('free')]);

      stub.refuse.delete(pair);
      const again = await post(pair, pro.token, '?wait=20');
      expect(again.status).toBe(202);
      expect(again.body).toMatchObject({ status: 'completed', error: null, downloads_used: 0 });
      expect(new Date(again.body.created_at).getTime()).toBeGreaterThanOrEqual(new Date(failed.body.created_at).getTime());
      await t.settled();
      const stream = await t.service.deps.store.readStream(psdExportStream(pair));
      expect(stream.map((e) => e.type)).toEqual(['PsdExportRequested', 'PsdExportStarted', 'PsdExportFailed', 'PsdExportRequested', 'PsdExportStarted', 'PsdExportCompleted']);
      expect(stream.filter((e) => e.type === 'PsdExportRequested').map((e) => e.data.regeneration)).toEqual([false, true]);
      const exportIds = new Set(stream.map((e) => e.data.export_id));
      const usage = (await t.service.deps.store.readAll({ after: 0n, limit: 1_000_000 })).filter((e) => e.stream.startsWith('usage-') && exportIds.has(String(e.data.export_id)));
      // The first was reserved and released, the regeneration never reserved: nothing charged.
      expect(usage.map((e) => e.type).sort()).toEqual(['PsdExportReleased', 'PsdExportReserved']);
    });
  });
  describe('the read model', () => {
    const rows = async () => (await t.service.deps.knex('psd_exports').select('*')).map((r) => JSON.stringify(r)).sort();

    it('rebuilds from the events into the same rows (regenerations, downloads, refusals included), and a replayed event changes nothing', async () => {
      await t.settled();
      const before = await rows();
      expect(before.length).toBeGreaterThan(50);
      expect(before.some((r) => r.includes('"status":"completed"') && r.includes('"downloads_used":5'))).toBe(true);
      await t.service.projections.rebuild();
      expect(await rows()).toEqual(before);
      const { psdExportsProjector } = await import('../../projections/psd-export/projection.js');
      const events = await t.service.deps.store.readAll({ after: 0n, limit: 1_000_000 });
      await t.service.deps.knex.transaction(async (trx) => {
        for (const event of events) await psdExportsProjector.apply(trx, event);
      });
      expect(await rows()).toEqual(before);
    });
  });
});
