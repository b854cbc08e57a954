import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it, vi } from 'vitest';
import { psdExportStream } from '../../src/features/psd-export/events.js';
import { PSD_EXPORT_TTL_MS } from '../../workflows/psd-export/policy.js';
import { SkewedClock } from '../support/clock.js';
import { databaseTargets } from '../support/databases.js';
import { waitFor } from '../support/poll.js';
import { serviceSuite } from '../support/suite.js';
import { seedVerification } from '../http/psd-export-support.js';
import type { StubPsdDeps } from '../support/psd-stub.js';

/**
 * The expiry of a PSD export through the service's own durable workflow engine (in-process): the
 * service's clock is moved by hand (SkewedClock) and the engine looks for due runs every 200 ms.
 * 30 days after completion the run's timer records PsdExportExpired and the file is deleted;
 * downloads answer 410 EXPIRED from that instant; a request regenerates the export free of
 * charge. The timer survives a restart (it is derived from the recorded completion). The builder
 * is a stub (the file's own suites build real ones).
 */
vi.mock('../../src/features/psd-export/psd-file.js', async (importOriginal) => {
  const { storeStubPsd } = await import('../support/psd-stub.js');
  return { ...(await importOriginal<object>()), buildPsdExport: (deps: StubPsdDeps, verificationId: string) => storeStubPsd(deps, verificationId) };
});

const DAY = 86_400_000;

for (const target of databaseTargets) describe(`PSD export expiry on ${target.name} (in-process engine, moved clock)`, () => {
  const clock = new SkewedClock();
  const { t, call, newAccount } = serviceSuite(target, {}, { clock, workflowSweepMs: 200, persistent: true });
  const pro = newAccount({ plan: 'professional' });

  const path = (id: string) => `/v1/verifications/${id}/psd-export`;
  const types = async (id: string) => (await t.service.deps.store.readStream(psdExportStream(id))).map((e) => e.type);
  const download = (id: string) => call('GET', `${path(id)}/download`, { token: pro.token });
  const key = (id: string) => `verifications/${id}/export.psd`;
  async function completed(id: string) {
    const res = await call('POST', `${path(id)}?wait=20`, { token: pro.token });
    expect(res.body.status).toBe('completed');
    return res.body as { expires_at: string; created_at: string };
  }

  it('is downloadable until 30 days after completion, then expired by its timer: event recorded, file deleted, 410, regenerated free', async () => {
    const pair = await seedVerification(t, pro.account.id);
    const status = await completed(pair);
    expect((await download(pair)).status).toBe(302);

    // A minute before the end of the 30 days: still there, still downloadable.
    clock.advance(new Date(status.expires_at).getTime() - clock.now().getTime() - 60_000);
    await sleep(500);
    expect(await types(pair)).not.toContain('PsdExportExpired');
    expect((await download(pair)).status).toBe(302);
    expect(await t.service.deps.blobs.exists(key(pair))).toBe(true);

    clock.advance(61_000);
    await waitFor(async () => (await types(pair)).includes('PsdExportExpired'), 'the expiry to be recorded');
    await waitFor(async () => !(await t.service.deps.blobs.exists(key(pair))), 'the file to be deleted');
    await t.settled();
    const expired = await download(pair);
    expect([expired.status, expired.body.detail.error_code]).toEqual([410, 'EXPIRED']);
    expect(expired.body.detail.suggestion).toContain('free of charge');
    const after = (await call('GET', path(pair), { token: pro.token })).body;
    expect(after).toMatchObject({ status: 'completed', downloads_used: 2, expires_at: status.expires_at, error: expect.stringContaining('expired') });
    expect((await call('GET', `/v1/verifications/${pair}`, { token: pro.token })).body.psd_export).toEqual(after);
    const history = (await call('GET', `/v1/audit/streams/${psdExportStream(pair)}`, { token: pro.token })).body.events;
    expect(history.at(-1)).toMatchObject({ type: 'PsdExportExpired', metadata: { account_id: pro.account.id, actor: { type: 'system' } } });

    // Requested again: a new export, free (usage reserves nothing for it), with fresh downloads.
    const again = await completed(pair);
    expect(again).toMatchObject({ downloads_used: 0, error: null });
    expect(new Date(again.expires_at).getTime()).toBeGreaterThan(new Date(status.expires_at).getTime());
    expect((await download(pair)).status).toBe(302);
    await t.settled();
    const stream = await t.service.deps.store.readStream(psdExportStream(pair));
    const requests = stream.filter((e) => e.type === 'PsdExportRequested');
    expect(requests.map((e) => e.data.regeneration)).toEqual([false, true]);
    const regenerated = String(requests[1]!.data.export_id);
    const usage = (await t.service.deps.store.readAll({ after: 0n, limit: 1_000_000 })).filter((e) => e.stream.startsWith('usage-') && e.data.export_id === regenerated);
    expect(usage).toEqual([]);
  });

  it('keeps the timer over a restart', async () => {
    const pair = await seedVerification(t, pro.account.id);
    const status = await completed(pair);
    await t.settled();
    await t.restart();
    clock.advance(new Date(status.expires_at).getTime() - clock.now().getTime() + 1_000);
    await waitFor(async () => (await types(pair)).includes('PsdExportExpired'), 'the expiry to be recorded after the restart');
    await waitFor(async () => !(await t.service.deps.blobs.exists(key(pair))), 'the file to be deleted after the restart');
    expect((await types(pair)).filter((e) => e === 'PsdExportExpired')).toHaveLength(1);
    expect((await download(pair)).status).toBe(410);
    expect(PSD_EXPORT_TTL_MS).toBe(30 * DAY);
  });
});
