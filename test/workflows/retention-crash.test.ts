import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { verificationStream } from '../../src/features/verifications/events.js';
import { RAW_DISCARD_WORKFLOW_TYPE } from '../../workflows/verifications/raw-discard-workflow.js';
import { crashWorld, sleep } from '../support/crash.js';
import { databaseTargets } from '../support/databases.js';
import { client, registerAccount } from '../support/service.js';

/**
 * SIGKILL at each step of the RAW discard run (issue 25, must-work 6), before and after it
 * (`CRASH_AT=rawDiscard.<step>:before|after`, the in-process engine's failpoints), on a service
 * that runs as its own process on a database and data directory that outlive it. A pair is
 * verified with RAW_RETENTION=keep (its RAW stays); the next processes run with the default
 * (discard): the sweep starts the run, which is killed before recording RawFileDiscarded, after
 * it (the event recorded, the file still there: the window between them), before the deletion
 * and after it; the last process, without a failpoint, finds the run done. In the end the RAW is
 * gone from the disk and RawFileDiscarded is recorded once. test/workflows/crash-points.test.ts
 * names this file.
 */
const fixtures = path.resolve(import.meta.dirname, '../../../shared/fixtures');
const pair = { raw: 'pairs/canon_eos_6d_dng/canon_eos_6d.dng', image: 'pairs/canon_eos_6d_dng/canon_eos_6d.preview.jpg' };

for (const target of databaseTargets) describe(`the RAW discard killed at its steps, on ${target.name}`, () => {
  const world = crashWorld(target, 'pv-retention-crash-');

  it('discards the RAW exactly once after kills before and after each step', async () => {
    const env = await world.env();
    const base = `http://127.0.0.1:${env.PORT}`;
    const call = client(base);

    const keeping = await world.launch({ ...env, RAW_RETENTION: 'keep' });
    const { token } = await registerAccount(call);
    const form = new FormData();
    form.append('image', await fs.openAsBlob(path.join(fixtures, pair.image)), path.basename(pair.image));
    form.append('raw', await fs.openAsBlob(path.join(fixtures, pair.raw)), path.basename(pair.raw));
    const created = await fetch(`${base}/v1/verifications/`, { method: 'POST', headers: { authorization: `Bearer ${token}` }, body: form });
    expect(created.status).toBe(201);
    const { id } = (await created.json()) as { id: string };
    const rawFile = path.join(world.dataDir, 'blobs', 'verifications', id, 'raw.dng');
    let status = '';
    for (let i = 0; i < 3000 && status !== 'completed' && status !== 'failed'; i++) {
      status = (await call('GET', `/v1/verifications/${id}`, { token })).body.status;
      if (status !== 'completed') await sleep(200);
    }
    expect(status).toBe('completed');
    expect(fs.existsSync(rawFile)).toBe(true);
    await world.stop(keeping, 'SIGTERM');

    for (const point of ['recordRawDiscard:before', 'recordRawDiscard:after', 'deleteRawFile:before', 'deleteRawFile:after']) {
      const child = await world.launch({ ...env, CRASH_AT: `${RAW_DISCARD_WORKFLOW_TYPE}.${point}` }, { mayDie: true });
      await world.killedAt(child, point);
      // Until the deletion step has run, the RAW is still on the disk, whatever was recorded.
      if (point !== 'deleteRawFile:after') expect(fs.existsSync(rawFile), point).toBe(true);
    }
    expect(fs.existsSync(rawFile)).toBe(false);

    await world.launch(env);
    await sleep(1_500); // time for a second (wrong) record to appear, if the steps were not idempotent
    const history = await call('GET', `/v1/audit/streams/${verificationStream(id)}`, { token });
    const types = (history.body.events as { type: string }[]).map((e) => e.type);
    expect(types.filter((type) => type === 'RawFileDiscarded')).toHaveLength(1);
    expect(types.at(-1)).toBe('RawFileDiscarded');
    expect(fs.existsSync(rawFile)).toBe(false);
    expect((await call('GET', `/v1/verifications/${id}`, { token })).body.raw_photo_hash).toMatch(/^sha256:[0-9a-f]{64}$/);
  }, 900_000);
});
