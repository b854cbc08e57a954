import crypto from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { systemContext } from '../../src/core/es/commands.js';
import { runCommand } from '../../src/core/es/decider.js';
import { createPsdExportActivities } from '../../src/features/psd-export/activities.js';
import { psdBlobKey } from '../../src/features/psd-export/psd-file.js';
import { psdExportDecider, psdExportStream, type PsdExportCommand } from '../../src/features/psd-export/decider.js';
import { assertPsdExportAllowed } from '../../src/features/usage/index.js';
import { databaseTargets } from '../support/databases.js';
import { serviceSuite } from '../support/suite.js';
import { seedVerification } from '../http/psd-export-support.js';

/**
 * The export workflow's steps on a real store, where a run resumed after a kill finds its export
 * already ended: a kill between recording the end and charging (or releasing) it must still
 * charge (or release) it, once. (Found by psd-export-crash.test.ts: a process killed mid-build
 * just after the completion was recorded left the export reserved, never charged.)
 */
const activity = { signal: new AbortController().signal, attempt: 1, heartbeat: () => undefined };

for (const target of databaseTargets) describe(`PSD export steps resumed after a kill, on ${target.name}`, () => {
  const { t, newAccount } = serviceSuite(target);
  const pro = newAccount({ plan: 'professional' });

  /** An export reserved (its charge too) and its build started, as the request and the run's first step record it. */
  async function started() {
    const deps = t.service.deps;
    const pair = await seedVerification(t, pro.account.id);
    const exportId = crypto.randomUUID();
    const context = systemContext(deps, { actor: { type: 'user', id: pro.user.id }, correlationId: exportId, accountId: pro.account.id });
    await assertPsdExportAllowed(deps, context, { accountId: pro.account.id, verificationId: pair, exportId });
    const record = (command: PsdExportCommand) => runCommand(deps.store, psdExportStream(pair), psdExportDecider, command, context);
    await record({ type: 'Request', export_id: exportId, verification: { status: 'completed', mode: 'raw_pair', canvas: null }, now: context.now });
    await record({ type: 'Start', export_id: exportId, now: context.now });
    return { deps, pair, exportId, record, now: context.now };
  }

  /** An export reserved and recorded up to `end`, as a process killed right after recording it leaves it. */
  async function endedWithoutCharge(end: 'Complete' | 'Fail') {
    const { pair, exportId, record, now } = await started();
    await record(
      end === 'Complete'
        ? { type: 'Complete', export_id: exportId, now, blob_key: `verifications/${pair}/export.psd`, sha256: 'a'.repeat(64), file_size_bytes: 1, canvas_width: 1, canvas_height: 1 }
        : { type: 'Fail', export_id: exportId, reason: 'killed', now },
    );
    return { pair, exportId };
  }
  const usageOf = async (exportId: string) =>
    (await t.service.deps.store.readAll({ after: 0n, limit: 1_000_000 })).filter((e) => e.stream.startsWith('usage-') && e.data.export_id === exportId).map((e) => e.type).sort();

  it('a completed export found at the start of a resumed run is charged, once', async () => {
    const { pair, exportId } = await endedWithoutCharge('Complete');
    expect(await usageOf(exportId)).toEqual(['PsdExportReserved']);
    const steps = createPsdExportActivities(t.service.deps);
    expect(await steps.startPsdExport(activity, pair, exportId)).toMatchObject({ status: 'completed' });
    expect(await steps.startPsdExport(activity, pair, exportId)).toMatchObject({ status: 'completed' });
    expect(await usageOf(exportId)).toEqual(['PsdExportMetered', 'PsdExportReserved']);
  });

  it('a failed export found at the start of a resumed run is released, once, never charged', async () => {
    const { pair, exportId } = await endedWithoutCharge('Fail');
    const steps = createPsdExportActivities(t.service.deps);
    expect(await steps.startPsdExport(activity, pair, exportId)).toEqual({ status: 'failed' });
    expect(await steps.startPsdExport(activity, pair, exportId)).toEqual({ status: 'failed' });
    expect(await usageOf(exportId)).toEqual(['PsdExportReleased', 'PsdExportReserved']);
  });

  it('a build that stored its file and then failed leaves no file behind; a later step of that run deletes nothing', async () => {
    const { deps, pair, exportId } = await started();
    // What a build stores before its completion is recorded.
    const key = psdBlobKey(pair);
    await deps.blobs.put(key, Buffer.from('8BPS stored by a build that then failed'));
    expect(await deps.blobs.exists(key)).toBe(true);

    const steps = createPsdExportActivities(deps);
    expect(await steps.failPsdExport(activity, pair, exportId, 'retries spent')).toEqual({ status: 'failed' });
    expect(await deps.blobs.exists(key)).toBe(false);

    // The failure is recorded: a file stored again under the key (a regeneration's) is not the failed run's to delete.
    await deps.blobs.put(key, Buffer.from('8BPS a regeneration'));
    expect(await steps.failPsdExport(activity, pair, exportId, 'retries spent')).toEqual({ status: 'failed' });
    expect(await deps.blobs.exists(key)).toBe(true);
  });
});
