import { describe, expect, it } from 'vitest';
import { requestStream } from '../../src/features/requests/events.js';
import { REQUEST_EXPIRY_WORKFLOW_TYPE } from '../../workflows/requests/workflow.js';
import { crashWorld, sleep } from '../support/crash.js';
import { databaseTargets } from '../support/databases.js';
import { client, registerAccount } from '../support/service.js';

/**
 * SIGKILL at the request expiry's step (issue 24, must-work 4), before and after it
 * (`CRASH_AT=requestExpiry.expireRequest:before|after`, the in-process engine's failpoints), on a
 * service that runs as its own process on a database and data directory that outlive it. A
 * request is created with a deadline seconds away; the process whose timer fires first dies
 * before the step, the next one (resuming the run) dies after it, the last one finds the run done:
 * RequestExpired is recorded exactly once. test/workflows/crash-points.test.ts names this file.
 */
const STEP = `${REQUEST_EXPIRY_WORKFLOW_TYPE}.expireRequest`;

for (const target of databaseTargets) describe(`request expiry killed at its step, on ${target.name}`, () => {
  const world = crashWorld(target, 'pv-request-crash-');

  it('records the expiry once after a kill before and after the step', async () => {
    const env = await world.env();
    const call = client(`http://127.0.0.1:${env.PORT}`);

    const first = await world.launch({ ...env, CRASH_AT: `${STEP}:before` }, { mayDie: true });
    const { token } = await registerAccount(call);
    const expiresAt = new Date(Date.now() + 3_000).toISOString();
    const created = await call('POST', '/v1/requests', { token, json: { subject: 'Killed at its deadline', expires_at: expiresAt } });
    expect(created.status).toBe(201);
    await world.killedAt(first, 'before');

    const second = await world.launch({ ...env, CRASH_AT: `${STEP}:after` }, { mayDie: true });
    await world.killedAt(second, 'after');

    await world.launch(env);
    let types: string[] = [];
    for (let i = 0; i < 600 && !types.includes('RequestExpired'); i++) {
      const history = await call('GET', `/v1/audit/streams/${requestStream(created.body.id)}`, { token });
      types = history.status === 200 ? (history.body.events as { type: string }[]).map((e) => e.type) : [];
      if (!types.includes('RequestExpired')) await sleep(200);
    }
    await sleep(1_500); // time for a second (wrong) record to appear, if the step were not idempotent
    const history = await call('GET', `/v1/audit/streams/${requestStream(created.body.id)}`, { token });
    expect((history.body.events as { type: string }[]).map((e) => e.type)).toEqual(['RequestCreated', 'RequestExpired']);
    expect((await call('GET', `/v1/requests/${created.body.id}`, { token })).body.status).toBe('expired');
  }, 600_000);
});
