import crypto from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { runCommand, type CommandContext } from '../../src/core/es/decider.js';
import { createPsdCleanupActivities, psdExportDeletionSweep, psdReservationReleaseSweep } from '../../src/features/psd-export/cleanup-activities.js';
import { psdExportDecider, psdExportStream } from '../../src/features/psd-export/decider.js';
import { assertPsdExportAllowed, monthOf } from '../../src/features/usage/index.js';
import { PSD_EXPORT_TTL_MS } from '../../workflows/psd-export/policy.js';
import { SkewedClock } from '../support/clock.js';
import { databaseTargets } from '../support/databases.js';
import { waitFor } from '../support/poll.js';
import { serviceSuite } from '../support/suite.js';
import { Gate, seedVerification } from './psd-export-support.js';
import type { StubPsdDeps } from '../support/psd-stub.js';

/**
 * What the PSD export's recovery workflows clean up, over a real service on each database (the
 * in-process engine sweeping every 200 ms, its clock moved by hand):
 * - a reservation a process killed between usage's PsdExportReserved and the request's
 *   PsdExportRequested left (forged here by reserving straight through usage, with the `now` the
 *   killed request had, and recording nothing) is released once past METERING_RELEASE_GRACE_MS,
 *   and the month's usage gets its place back; a younger one, and an old one whose export is
 *   recorded and still being built, are not;
 * - a deleted verification's completed export ends at once (PsdExportExpired, reason
 *   verification_deleted, in the audit history) and its file is deleted; a live verification's
 *   export keeps its file; the export's own run, waking at day 30, finds nothing left to do.
 * The builder is a stub (the file's own suites build real ones); a per-verification gate holds
 * a build in progress.
 */
const gates = vi.hoisted(() => new Map<string, Promise<void>>());

vi.mock('../../src/features/psd-export/psd-file.js', async (importOriginal) => {
  const { storeStubPsd } = await import('../support/psd-stub.js');
  return {
    ...(await importOriginal<object>()),
    async buildPsdExport(deps: StubPsdDeps, verificationId: string) {
      await gates.get(verificationId);
      return storeStubPsd(deps, verificationId);
    },
  };
});

const SWEEP_MS = 200;

for (const target of databaseTargets) describe(`PSD export cleanup on ${target.name}`, () => {
  const clock = new SkewedClock();
  const { t, call, newAccount } = serviceSuite(target, {}, { clock, workflowSweepMs: SWEEP_MS });
  const pro = newAccount({ plan: 'professional' });

  const all = async (type: string) => (await t.service.deps.store.readAll({ after: 0n, limit: 1_000_000 })).filter((e) => e.type === type);
  const exportEvents = (id: string) => t.service.deps.store.readStream(psdExportStream(id));
  const usage = async (month: string) => (await call('GET', `/v1/accounts/${pro.account.id}/usage?month=${month}`, { token: pro.token })).body.psd_exports;
  /** The read models have applied everything (t.settled() would also wait for the held build). */
  const caughtUp = async () => expect(await t.service.deps.readModels.waitFor(await t.service.deps.store.headPosition(), 30_000)).toBe(true);
  const run = (type: string, id: string) => t.service.deps.knex('workflow_runs').where({ type, id }).first();
  const contextAt = (now: Date): CommandContext => ({
    accountId: pro.account.id,
    actor: { type: 'user', id: pro.user.id },
    correlationId: crypto.randomUUID(),
    causationId: crypto.randomUUID(),
    processingRegion: t.service.deps.config.PROCESSING_REGION,
    now,
  });
  /** What a request killed after its reservation left: PsdExportReserved at `now`, nothing else. */
  const reserveAt = (verificationId: string, exportId: string, now: Date) => assertPsdExportAllowed(t.service.deps, contextAt(now), { accountId: pro.account.id, verificationId, exportId });

  describe('a reservation no export names', () => {
    let held: Gate;
    beforeAll(() => {
      held = new Gate();
    });

    it('is released once past the grace period, its place back in the month; a young one and one whose export is being built are not', async () => {
      const grace = t.service.deps.config.METERING_RELEASE_GRACE_MS;
      const old = new Date(clock.now().getTime() - 4 * grace);
      const young = new Date(clock.now().getTime() - 60_000);
      const month = monthOf(old);
      expect(await usage(month)).toMatchObject({ in_progress: 0, included_remaining: 50 });

      // An old reservation whose export was recorded (by the same request) and is still being built: its run holds it.
      const building = await seedVerification(t, pro.account.id);
      gates.set(building, held.promise);
      const buildingExport = crypto.randomUUID();
      await reserveAt(building, buildingExport, old);
      await runCommand(t.service.deps.store, psdExportStream(building), psdExportDecider, { type: 'Request', export_id: buildingExport, verification: { status: 'completed', mode: 'raw_pair', canvas: null }, now: old }, contextAt(old));
      await waitFor(async () => (await exportEvents(building)).some((e) => e.type === 'PsdExportStarted'), 'the recorded export to be started by its sweep');

      // Two reservations no export names: one older than the grace (the orphan), one within it (its request may still be recording it).
      const orphanOf = await seedVerification(t, pro.account.id);
      const orphan = crypto.randomUUID();
      const youngOf = await seedVerification(t, pro.account.id);
      const youngExport = crypto.randomUUID();
      await reserveAt(youngOf, youngExport, young);
      await reserveAt(orphanOf, orphan, old);

      await waitFor(async () => (await all('PsdExportReleased')).length > 0, 'the orphan to be released');
      await caughtUp();
      const released = await all('PsdExportReleased');
      expect(released.map((e) => e.data.export_id)).toEqual([orphan]);
      expect(released[0]!.metadata).toMatchObject({ account_id: pro.account.id, actor: { type: 'system', id: 'psd-reservation-release' } });
      expect((await run('psdReservationRelease', `psd-reservation-release-${orphan}`))?.status).toBe('completed');
      // The month counts the export being built and the young reservation (when in the same month), not the orphan.
      const held1 = 1 + (monthOf(young) === month ? 1 : 0);
      expect(await usage(month)).toMatchObject({ in_progress: held1, included_remaining: 50 - held1 });
      expect(await exportEvents(orphanOf)).toEqual([]);

      // Later sweeps add nothing and find nothing to release.
      await sleep(10 * SWEEP_MS);
      await caughtUp();
      expect(await all('PsdExportReleased')).toHaveLength(1);
      expect(await psdReservationReleaseSweep(grace)({ knex: t.service.deps.knex, now: clock.now() })).toEqual([]);

      // The build ends: its reservation is charged, not released.
      held.open();
      await waitFor(async () => (await exportEvents(building)).some((e) => e.type === 'PsdExportCompleted'), 'the held export to complete');
      await t.settled();
      expect((await all('PsdExportMetered')).map((e) => e.data.export_id)).toEqual([buildingExport]);
      expect(await all('PsdExportReleased')).toHaveLength(1);
    }, 240_000);

    it('the activity re-reads the export stream: an export recorded there keeps its reservation; a second release appends nothing', async () => {
      const activities = createPsdCleanupActivities(t.service.deps);
      const now = clock.now();
      const recorded = await seedVerification(t, pro.account.id);
      const recordedExport = crypto.randomUUID();
      await reserveAt(recorded, recordedExport, now);
      // Recorded in the stream, as its request does (the activity reads the stream, not the read model).
      await runCommand(t.service.deps.store, psdExportStream(recorded), psdExportDecider, { type: 'Request', export_id: recordedExport, verification: { status: 'completed', mode: 'raw_pair', canvas: null }, now }, contextAt(now));
      const input = (verification_id: string, export_id: string) => ({ account_id: pro.account.id, verification_id, export_id, reserved_at: now.toISOString() });
      expect(await activities.releaseOrphanedPsdReservation({} as never, input(recorded, recordedExport))).toBe('requested');

      const orphanOf = await seedVerification(t, pro.account.id);
      const orphan = crypto.randomUUID();
      await reserveAt(orphanOf, orphan, now);
      const before = (await all('PsdExportReleased')).length;
      expect(await activities.releaseOrphanedPsdReservation({} as never, input(orphanOf, orphan))).toBe('released');
      expect(await activities.releaseOrphanedPsdReservation({} as never, input(orphanOf, orphan))).toBe('released');
      const released = await all('PsdExportReleased');
      expect(released.map((e) => e.data.export_id).slice(before)).toEqual([orphan]);
    }, 120_000);
  });

  describe('a deleted verification’s export', () => {
    const key = (id: string) => `verifications/${id}/export.psd`;
    const completed = async (id: string) => {
      const res = await call('POST', `/v1/verifications/${id}/psd-export?wait=20`, { token: pro.token });
      expect(res.body.status).toBe('completed');
      return (await exportEvents(id))[0]!.data.export_id as string;
    };

    it('ends at once, recorded in the audit history, its file deleted; a live one is kept; the export’s own run wakes at day 30 to nothing', async () => {
      const deleted = await seedVerification(t, pro.account.id);
      const live = await seedVerification(t, pro.account.id);
      const deletedExport = await completed(deleted);
      const liveExport = await completed(live);
      expect(await t.service.deps.blobs.exists(key(deleted))).toBe(true);

      expect((await call('DELETE', `/v1/verifications/${deleted}`, { token: pro.token })).status).toBe(200);
      await waitFor(async () => !(await t.service.deps.blobs.exists(key(deleted))), 'the deleted verification’s PSD to be deleted');
      await t.settled();
      const ended = (await exportEvents(deleted)).filter((e) => e.type === 'PsdExportExpired');
      expect(ended.map((e) => e.data)).toEqual([{ export_id: deletedExport, blob_key: key(deleted), expired_at: expect.any(String), reason: 'verification_deleted' }]);
      const history = await call('GET', `/v1/audit/streams/${psdExportStream(deleted)}`, { token: pro.token });
      expect(history.status).toBe(200);
      expect(history.body.events.at(-1)).toMatchObject({ type: 'PsdExportExpired', data: { reason: 'verification_deleted' }, metadata: { account_id: pro.account.id, actor: { type: 'system' } } });
      expect((await call('GET', `/v1/verifications/${deleted}/psd-export/download`, { token: pro.token })).status).toBe(404);
      expect((await run('psdExportDeletion', `psd-export-deletion-${deletedExport}`))?.result).toBe(JSON.stringify('deleted'));

      // The live verification's export keeps its file and stays downloadable; nothing more to sweep.
      expect(await t.service.deps.blobs.exists(key(live))).toBe(true);
      expect((await exportEvents(live)).map((e) => e.type)).not.toContain('PsdExportExpired');
      expect((await call('GET', `/v1/verifications/${live}/psd-export/download`, { token: pro.token })).status).toBe(302);
      expect(await psdExportDeletionSweep({ knex: t.service.deps.knex, now: clock.now() })).toEqual([]);
      // The activity re-reads the verification's stream: a live one (its row missing from a lagging read model) is left alone.
      const activities = createPsdCleanupActivities(t.service.deps);
      expect(await activities.deletePsdExportOfDeletedVerification({} as never, { verification_id: live, export_id: liveExport })).toBe('live');
      // Run again on the deleted one: nothing recorded twice.
      expect(await activities.deletePsdExportOfDeletedVerification({} as never, { verification_id: deleted, export_id: deletedExport })).toBe('deleted');
      expect((await exportEvents(deleted)).filter((e) => e.type === 'PsdExportExpired')).toHaveLength(1);

      // Day 30: both exports' runs wake; the live one's expires as usual, the deleted one's finds it ended.
      expect((await run('psdExport', deletedExport))?.status).toBe('running');
      clock.advance(PSD_EXPORT_TTL_MS + 60_000);
      await waitFor(async () => (await run('psdExport', deletedExport))?.status !== 'running', 'the deleted export’s run to wake and end');
      await waitFor(async () => (await run('psdExport', liveExport))?.status !== 'running', 'the live export’s run to wake and end');
      expect(await run('psdExport', deletedExport)).toMatchObject({ status: 'completed', result: JSON.stringify('expired') });
      expect((await exportEvents(deleted)).filter((e) => e.type === 'PsdExportExpired')).toHaveLength(1);
      const liveEnd = (await exportEvents(live)).filter((e) => e.type === 'PsdExportExpired');
      expect(liveEnd.map((e) => e.data.reason)).toEqual([undefined]);
      expect(await t.service.deps.blobs.exists(key(live))).toBe(false);
    }, 240_000);
  });
});
