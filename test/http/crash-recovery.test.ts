import { describe, it } from 'vitest';
import { crashWorld, expectCompletionOnceAfterKill } from '../support/crash.js';
import { databaseTargets } from '../support/databases.js';

for (const target of databaseTargets) describe(`crash recovery on ${target.name}`, () => {
  const world = crashWorld(target, 'pv-crash-');

  it('completes a verification once after SIGKILL in the middle of its analysis', async () => {
    await expectCompletionOnceAfterKill(world, await world.env(), 60_000);
  }, 120_000);
});
