import fs from 'node:fs';
import path from 'node:path';
import { DefaultLogger, Runtime, Worker } from '@temporalio/worker';
import { beforeAll, describe, expect, it } from 'vitest';
import { workflowBundle } from '../../src/adapters/workflows/temporal/worker.js';

/**
 * Replays recorded histories against today's workflow code, without a server: a change that
 * would break running workflows (a different order of activities or timers) fails here.
 * - pair-verified.json: the 30D pair on the dev server (temporal-engine.test.ts), captured with
 *   `temporal workflow show -w verification-<id> -o json`.
 * - deadline.json: the 10-minute deadline on the time-skipping server, captured by running
 *   temporal-timeskip.test.ts with TEMPORAL_CAPTURE_HISTORIES=1.
 * - upload-expired.json: the upload expiry workflow (told once it was early) on the time-skipping
 *   server, captured by running upload-expiry-timeskip.test.ts with TEMPORAL_CAPTURE_HISTORIES=1.
 * A deliberate change to the workflow's commands needs versioning (patched()) or new captures.
 */
const histories = path.join(import.meta.dirname, 'histories');

describe('workflow replay (no server)', () => {
  beforeAll(() => {
    Runtime.install({ logger: new DefaultLogger('ERROR') });
  });

  it.each(['pair-verified', 'deadline'])('replays the %s history deterministically', async (name) => {
    const history = JSON.parse(fs.readFileSync(path.join(histories, `${name}.json`), 'utf8'));
    await expect(Worker.runReplayHistory({ workflowBundle: await workflowBundle() }, history, `verification-${name}`)).resolves.toBeUndefined();
    // No stopwatch: replay never waits for timers (the deadline history holds a 10-minute one,
    // far beyond this timeout). The timeout leaves room for bundling the workflow code, which is
    // CPU work and slow on a busy machine.
  }, 180_000);

  it('replays the upload expiry history deterministically', async () => {
    const history = JSON.parse(fs.readFileSync(path.join(histories, 'upload-expired.json'), 'utf8'));
    await expect(Worker.runReplayHistory({ workflowBundle: await workflowBundle() }, history, 'uploadExpiry-replay')).resolves.toBeUndefined();
  }, 180_000);
});
