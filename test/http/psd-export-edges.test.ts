import { describe, expect, it, vi } from 'vitest';
import { psdExportStream } from '../../src/features/psd-export/events.js';
import { PSD_MAX_CANVAS_PIXELS, PSD_MAX_SIDE } from '../../workflows/psd-export/policy.js';
import { PSD_VERIFICATION_DELETED_REASON } from '../../workflows/psd-export/workflow.js';
import { databaseTargets } from '../support/databases.js';
import { waitFor } from '../support/poll.js';
import { serviceSuite } from '../support/suite.js';
import { Gate, seedVerification } from './psd-export-support.js';
import type { StubPsdDeps } from '../support/psd-stub.js';

/**
 * The PSD export's edges a hostile client found (issue 36 items 3, 5, 6, 13), over real HTTP:
 * a canvas too large refused before anything is reserved, concurrent requests answered from the
 * command's own outcome while the read model cannot answer, an export of a verification deleted
 * during its build never charged nor kept, one read-scope rule for the download, the exports'
 * disk in the usage. The builder is a stub (psd-export.test.ts says why); the real canvas check
 * in the build runs in test/psd.
 */
const stub = vi.hoisted(() => ({ gate: null as null | Promise<void>, blindReadModel: false, bytes: 4321 }));

vi.mock('../../src/features/psd-export/psd-file.js', async (importOriginal) => {
  const { CANVAS_30D, storeStubPsd } = await import('../support/psd-stub.js');
  return {
    ...(await importOriginal<object>()),
    async buildPsdExport(deps: StubPsdDeps, verificationId: string) {
      if (stub.gate) await stub.gate;
      return storeStubPsd(deps, verificationId, { canvas: CANVAS_30D, bytes: Buffer.alloc(stub.bytes, 7) });
    },
  };
});

// The read model that "cannot answer yet" (issue 36 item 5): a request must not need it.
vi.mock('../../projections/psd-export/queries.js', async (importOriginal) => {
  const original = await importOriginal<typeof import('../../projections/psd-export/queries.js')>();
  return { ...original, findPsdExportStatus: async (...args: Parameters<typeof original.findPsdExportStatus>) => (stub.blindReadModel ? undefined : original.findPsdExportStatus(...args)) };
});

const path = (id: string) => `/v1/verifications/${id}/psd-export`;

for (const target of databaseTargets) describe(`PSD export edges on ${target.name}`, () => {
  // The in-process engine sweeps every 200 ms: the deletion sweep ends a deleted verification's export.
  const { t, call, newAccount } = serviceSuite(target, {}, { workflowSweepMs: 200 });
  const pro = newAccount({ plan: 'professional' });

  const streamOf = async (id: string) => (await t.service.deps.store.readStream(psdExportStream(id))).map((e) => e.type);
  const usageEvents = async (verificationId: string) =>
    (await t.service.deps.store.readAll({ after: 0n, limit: 1_000_000 })).filter((e) => e.stream.startsWith('usage-') && e.data.verification_id === verificationId).map((e) => e.type);
  const post = (id: string, query = '') => call('POST', `${path(id)}${query}`, { token: pro.token });

  describe('a canvas too large (items 3 and 4)', () => {
    it.each([
      ['wider than a PSD can be (36000x2400, 86 MP)', 36_000, 2_400, `${PSD_MAX_SIDE.toLocaleString('en')} px a side`],
      ['taller than a PSD can be', 1_000, PSD_MAX_SIDE + 1, `${PSD_MAX_SIDE.toLocaleString('en')} px a side`],
      ['more pixels than one export may have (12000x8000)', 12_000, 8_000, 'more than the'],
    ])('is refused with 422 PSD_CANVAS_TOO_LARGE when %s, before anything is reserved or recorded', async (_what, width, height, says) => {
      const pair = await seedVerification(t, pro.account.id, 'pair', { width, height });
      const before = await t.service.deps.store.headPosition();
      const res = await post(pair, '?wait=5');
      expect(res.status).toBe(422);
      expect(res.body.detail).toMatchObject({ error_code: 'PSD_CANVAS_TOO_LARGE', details: { canvas_width: width, canvas_height: height, max_side: PSD_MAX_SIDE, max_pixels: PSD_MAX_CANVAS_PIXELS } });
      expect(res.body.detail.message).toContain(says);
      expect(res.body.detail.suggestion).toContain('nothing was charged');
      // Nothing recorded for it (the verification's own stream may move meanwhile: its RAW's discard).
      const since = await t.service.deps.store.readAll({ after: before, limit: 10_000 });
      expect(since.filter((e) => e.stream === psdExportStream(pair) || (e.stream.startsWith('usage-') && JSON.stringify(e.data).includes(pair))).map((e) => `${e.stream} ${e.type}`)).toEqual([]);
      expect(await streamOf(pair)).toEqual([]);
      expect(await usageEvents(pair)).toEqual([]);
    });

    it('accepts the largest canvas (a 30,000 px side within the pixel budget)', async () => {
      const pair = await seedVerification(t, pro.account.id, 'pair', { width: PSD_MAX_SIDE, height: Math.floor(PSD_MAX_CANVAS_PIXELS / PSD_MAX_SIDE) });
      const res = await post(pair, '?wait=20');
      expect([res.status, res.body.status]).toEqual([202, 'completed']);
    });
  });

  describe('concurrent requests while the read model cannot answer (item 5)', () => {
    it('all answer 202 with the one export, from the command’s own outcome, never 503', async () => {
      const pair = await seedVerification(t, pro.account.id);
      const gate = new Gate();
      stub.gate = gate.promise;
      stub.blindReadModel = true;
      try {
        const answers = await Promise.all(Array.from({ length: 8 }, () => post(pair)));
        expect(answers.map((a) => a.status)).toEqual(Array(8).fill(202));
        expect(new Set(answers.map((a) => a.body.created_at)).size).toBe(1);
        for (const a of answers) expect(['queued', 'in_progress']).toContain(a.body.status);
        // A long-poll too answers from the stream: woken by the completion, read from the log.
        const waiting = post(pair, '?wait=20');
        gate.open();
        expect((await waiting).body).toMatchObject({ status: 'completed', file_size_bytes: stub.bytes, downloads_used: 0 });
      } finally {
        stub.gate = null;
        stub.blindReadModel = false;
      }
      await t.settled();
      expect((await streamOf(pair)).filter((e) => e === 'PsdExportRequested')).toHaveLength(1);
      // The status the request answered is the read model's, once it has caught up (one mapping, two readers).
      const read = await call('GET', path(pair), { token: pro.token });
      expect(read.body).toEqual((await post(pair)).body);
    });
  });

  describe('a verification deleted while its export is built (item 6)', () => {
    it('fails the export, saying why, charges nothing and keeps no file', async () => {
      const pair = await seedVerification(t, pro.account.id);
      const gate = new Gate();
      stub.gate = gate.promise;
      try {
        expect((await post(pair)).status).toBe(202);
        expect((await call('DELETE', `/v1/verifications/${pair}`, { token: pro.token })).status).toBe(200);
        gate.open();
        await t.settled();
      } finally {
        stub.gate = null;
      }
      const history = await t.service.deps.store.readStream(psdExportStream(pair));
      expect(history.map((e) => e.type)).toEqual(['PsdExportRequested', 'PsdExportStarted', 'PsdExportFailed']);
      expect(history.at(-1)!.data.reason).toBe(PSD_VERIFICATION_DELETED_REASON);
      expect((await usageEvents(pair)).sort()).toEqual(['PsdExportReleased', 'PsdExportReserved']);
      expect(await t.service.deps.blobs.exists(`verifications/${pair}/export.psd`)).toBe(false);
      // And a request for it now finds nothing.
      expect((await post(pair)).status).toBe(404);
    });
  });

  describe('one read-scope rule for the download (item 13) and the exports’ disk in the usage (item 3)', () => {
    it('a read-scope key is refused the download (it spends one of 5) and may HEAD it; the usage counts the file', async () => {
      const usageBefore = (await call('GET', `/v1/accounts/${pro.account.id}/usage`, { token: pro.token })).body;
      const pair = await seedVerification(t, pro.account.id);
      expect((await post(pair, '?wait=20')).body.status).toBe('completed');
      await t.settled();
      const key = (await call('POST', '/v1/apikeys/', { token: pro.token, json: { account_id: pro.account.id, scope: 'read' } })).body.raw_key as string;

      const refused = await call('GET', `${path(pair)}/download`, { apiKey: key });
      expect([refused.status, refused.body.detail.error_code]).toEqual([403, 'ACCESS_DENIED']);
      expect(refused.body.detail.message).toContain('read scope');
      const head = await fetch(`${t.url}${path(pair)}/download`, { method: 'HEAD', headers: { 'x-api-key': key }, redirect: 'manual' });
      expect(head.status).toBe(204);
      expect((await call('GET', path(pair), { apiKey: key })).body.downloads_used).toBe(0);
      expect((await streamOf(pair)).filter((e) => e === 'PsdExportDownloaded')).toEqual([]);
      // The full-scope owner downloads.
      expect((await call('GET', `${path(pair)}/download`, { token: pro.token })).status).toBe(302);

      const usage = (await call('GET', `/v1/accounts/${pro.account.id}/usage`, { token: pro.token })).body;
      expect(usage.psd_export_stored_bytes).toBe(usageBefore.psd_export_stored_bytes + stub.bytes);
      // Deleting the verification deletes its export's file, and the usage stops counting it.
      expect((await call('DELETE', `/v1/verifications/${pair}`, { token: pro.token })).status).toBe(200);
      await waitFor(
        async () => (await call('GET', `/v1/accounts/${pro.account.id}/usage`, { token: pro.token })).body.psd_export_stored_bytes === usageBefore.psd_export_stored_bytes,
        'the deleted verification’s export to leave the usage',
      );
      expect(await t.service.deps.blobs.exists(`verifications/${pair}/export.psd`)).toBe(false);
    });
  });
});

