import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/core/config.js';
import { appendFacts } from '../../src/core/es/decider.js';
import type { StoredEvent } from '../../src/core/es/event-store.js';
import { psdExportStream } from '../../src/features/psd-export/events.js';
import { verificationEvents, verificationStream, type VerificationEvent } from '../../src/features/verifications/events.js';
import { modules } from '../../src/modules.js';
import { openStores } from '../../src/service.js';
import { PSD_EXPORT_WORKFLOW_TYPE } from '../../workflows/psd-export/workflow.js';
import { crashWorld, sleep } from '../support/crash.js';
import { databaseTargets } from '../support/databases.js';
import { client, registerAccount } from '../support/service.js';

/**
 * SIGKILL while a PSD export is built, and at every step of its workflow (issue 23, must-work 4),
 * with the real builder, on a service that runs as its own process on a database and data
 * directory that outlive it. One real pair (the Canon 30D) is verified once; each export then
 * works on a copy of its verification (its events recorded again under a new id, sharing its
 * files), so every kill has a fresh export. A process is killed in the middle of a build (status
 * in_progress), then one per failpoint (`CRASH_AT=psdExport.<step>:before|after`); the next
 * process starts on what the last one left. After the last restart, every recorded export ended
 * once: completed once and metered once, or (a copy whose RAW was never registered) failed once
 * and released, never charged; no event twice; the file downloads and is a PSD.
 * test/workflows/crash-points.test.ts names this file for the PSD export's steps; the expiry
 * step's crash is tested by psd-export-expiry.test.ts (a restart while its timer waits).
 */
const pairDir = path.resolve(import.meta.dirname, '../../../shared/fixtures/pairs/canon_eos_30d_cr2');

/** The PSD export's steps that a request reaches (the expiry runs 30 days later: psd-export-expiry.test.ts). */
function buildSteps(): string[] {
  const known = { config: loadConfig({ DATA_DIR: os.tmpdir() }), onStop: () => undefined } as Record<string, unknown>;
  const deps = new Proxy(known, { get: (target, name) => target[String(name)] }) as never;
  const registration = modules.flatMap((m) => m.workflows?.(deps) ?? []).find((r) => r.definition.type === PSD_EXPORT_WORKFLOW_TYPE)!;
  return Object.keys(registration.definition.activities).filter((a) => a !== 'expirePsdExport').map((a) => `${PSD_EXPORT_WORKFLOW_TYPE}.${a}`);
}

for (const target of databaseTargets) describe(`PSD export killed while it is built, on ${target.name}`, () => {
  const world = crashWorld(target, 'pv-psd-crash-');

  it('completes once and is metered once after every kill; a failed one is released, never charged', async () => {
    const env = await world.env();
    const base = `http://127.0.0.1:${env.PORT}`;
    const call = client(base);
    const config = loadConfig({ DATA_DIR: env.DATA_DIR, ...(env.DATABASE_URL ? { DATABASE_URL: env.DATABASE_URL } : {}) });

    // The one real pair, verified by the service.
    const verifying = await world.launch(env);
    const { token, account } = await registerAccount(call, { plan: 'professional' });
    const form = new FormData();
    form.append('image', new Blob([new Uint8Array(fs.readFileSync(path.join(pairDir, 'IMG_5952.camera-preview.jpg')))]), 'IMG_5952.jpg');
    form.append('raw', new Blob([new Uint8Array(fs.readFileSync(path.join(pairDir, 'IMG_5952.CR2')))]), 'IMG_5952.CR2');
    const created = await fetch(`${base}/v1/verifications/`, { method: 'POST', headers: { authorization: `Bearer ${token}` }, body: form });
    expect(created.status).toBe(201);
    const pair = (await created.json()).id as string;
    let status = '';
    for (let i = 0; i < 3000 && status !== 'completed' && status !== 'failed'; i++) {
      status = (await call('GET', `/v1/verifications/${pair}`, { token })).body.status;
      if (status !== 'completed') await sleep(200);
    }
    expect(status).toBe('completed');
    await world.stop(verifying, 'SIGTERM');

    /** A copy of the pair's verification under a new id, recorded while no service holds the database; `fails`: its RAW never aligned, so the build refuses it. */
    const copies = new Map<string, 'completes' | 'fails'>();
    const copy = async (outcome: 'completes' | 'fails'): Promise<string> => {
      const { db, store, projections } = await openStores(config, pino({ level: 'silent' }));
      try {
        const id = crypto.randomUUID();
        const original = await store.readStream(verificationStream(pair));
        const events = original.map((e: StoredEvent) => {
          const data = { ...e.data } as Record<string, unknown>;
          if (e.type === 'VerificationQueued') data.verification_id = id;
          if (e.type === 'AnalysisRecorded') data.result_id = crypto.randomUUID();
          if (e.type === 'VerificationGraded' && outcome === 'fails') data.rendition_info = {};
          return { type: e.type, data } as VerificationEvent;
        });
        const now = new Date();
        await appendFacts(store, verificationStream(id), verificationEvents, events, { accountId: account.id, actor: { type: 'system', id: 'copy' }, correlationId: id, causationId: id, processingRegion: config.PROCESSING_REGION, now });
        copies.set(id, outcome);
        return id;
      } finally {
        await projections.stop();
        await store.close();
        await db.close();
      }
    };
    /** Requests the export of a copy once the service's read models show the copy (on PostgreSQL they catch up after the service answers). */
    const request = async (id: string) => {
      for (let i = 0; i < 600 && (await call('GET', `/v1/verifications/${id}`, { token })).status !== 200; i++) await sleep(100);
      return call('POST', `/v1/verifications/${id}/psd-export`, { token });
    };

    // Killed in the middle of a build: the status says in_progress, the file is not written yet.
    const midBuild = await copy('completes');
    const building = await world.launch(env);
    expect((await request(midBuild)).status).toBe(202);
    for (let i = 0; i < 600 && status !== 'in_progress'; i++) {
      status = (await call('GET', `/v1/verifications/${midBuild}/psd-export`, { token })).body.status;
      if (status !== 'in_progress') await sleep(20);
    }
    expect(status).toBe('in_progress');
    await world.stop(building, 'SIGKILL');

    // One process per failpoint: started with it, given an export that reaches it, killed by it.
    const points = buildSteps().flatMap((step) => [`${step}:before`, `${step}:after`]);
    expect(points).toContain(`${PSD_EXPORT_WORKFLOW_TYPE}.buildPsdExport:before`);
    const unreached: string[] = [];
    for (const point of points) {
      const id = await copy(point.includes('.failPsdExport:') ? 'fails' : 'completes');
      const child = await world.launch({ ...env, CRASH_AT: point }, { mayDie: true });
      // The process may reach the failpoint resuming an earlier run, before this request is answered.
      await request(id).catch(() => undefined);
      if (!(await world.reachedFailpoint(child))) unreached.push(point);
    }
    expect(unreached, 'failpoints no process reached').toEqual([]);

    // The last restart: every recorded export ends.
    const last = await world.launch(env);
    const { db, store, projections } = await (async () => {
      const ends = new Map<string, string>();
      for (const id of copies.keys()) {
        for (let i = 0; i < 3000; i++) {
          const res = await call('GET', `/v1/verifications/${id}/psd-export`, { token });
          if (res.status === 404 || res.body.status === 'completed' || res.body.status === 'failed') {
            ends.set(id, res.status === 404 ? 'none' : res.body.status);
            break;
          }
          await sleep(200);
        }
      }
      for (const [id, outcome] of copies) if (ends.get(id) !== 'none') expect(ends.get(id), `export of ${id}`).toBe(outcome === 'completes' ? 'completed' : 'failed');
      expect(ends.get(midBuild)).toBe('completed');
      // The file the build killed midway left is there, whole, and downloads.
      const download = await call('GET', `/v1/verifications/${midBuild}/psd-export/download`, { token });
      expect(download.status).toBe(302);
      const file = Buffer.from(await (await fetch(download.headers.get('location')!)).arrayBuffer());
      expect(file.subarray(0, 4).toString('latin1')).toBe('8BPS');
      expect(file.length).toBe((await call('GET', `/v1/verifications/${midBuild}/psd-export`, { token })).body.file_size_bytes);
      await world.stop(last, 'SIGTERM');
      return openStores(config, pino({ level: 'silent' }));
    })();

    try {
      const all = await store.readAll({ after: 0n, limit: 1_000_000 });
      expect(new Set(all.map((e) => e.id)).size, 'an event recorded twice').toBe(all.length);
      let recorded = 0;
      for (const [id, outcome] of copies) {
        const events = all.filter((e) => e.stream === psdExportStream(id));
        if (events.length === 0) continue; // a request a kill cut off before it was recorded
        recorded++;
        const count = (type: string) => events.filter((e) => e.type === type).length;
        const facts = events.map((e) => e.type).join(', ');
        expect([count('PsdExportRequested'), count('PsdExportStarted')], `${id}: ${facts}`).toEqual([1, 1]);
        expect([count('PsdExportCompleted'), count('PsdExportFailed')], `${id}: ${facts}`).toEqual(outcome === 'completes' ? [1, 0] : [0, 1]);
        const exportId = String(events[0]!.data.export_id);
        const usage = all.filter((e) => e.stream.startsWith('usage-') && e.data.export_id === exportId).map((e) => e.type);
        expect(usage.sort(), `usage of ${id}`).toEqual(outcome === 'completes' ? ['PsdExportMetered', 'PsdExportReserved'] : ['PsdExportReleased', 'PsdExportReserved']);
      }
      expect(all.some((e) => e.stream === psdExportStream(midBuild)), 'the export killed mid-build is recorded').toBe(true);
      console.info(`PSD export crash on ${target.name}: mid-build kill and ${points.length} failpoints (${points.join(', ')}), ${recorded} of ${copies.size} exports recorded, ${all.length} events`);
    } finally {
      await projections.stop();
      await store.close();
      await db.close();
    }
  }, 30 * 60_000);
});
