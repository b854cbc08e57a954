import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, it } from 'vitest';
import { databaseTargets } from '../support/databases.js';
import { expectCompletionOnceAfterKill, freePort } from '../support/processes.js';

for (const target of databaseTargets) describe(`crash recovery on ${target.name}`, () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'pv-crash-'));
  const children: ChildProcess[] = [];
  let drop = async () => {};
  afterAll(async () => {
    for (const child of children) child.kill('SIGKILL');
    await drop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('completes a verification once after SIGKILL in the middle of its analysis', async () => {
    const scratch = await target.scratchUrl();
    drop = scratch.drop;
    const env = { PORT: String(await freePort()), DATA_DIR: dataDir, DATABASE_URL: scratch.url ?? '' };
    await expectCompletionOnceAfterKill(env, children, 60_000);
  }, 120_000);
});
