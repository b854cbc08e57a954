import crypto from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { appendFacts } from '../../src/core/es/decider.js';
import { requestEvents, requestStream } from '../../src/features/requests/events.js';
import { SkewedClock } from '../support/clock.js';
import { databaseTargets } from '../support/databases.js';
import { waitFor } from '../support/poll.js';
import { serviceSuite } from '../support/suite.js';

/**
 * The expiry of verification requests through the service's own durable workflow engine
 * (in-process; issue 24, must-work 4), the clock moved by hand and due runs looked for every
 * 200 ms: the timer survives a restart (its wake time is the recorded deadline) and records the
 * expiry once; a request whose run was never started (a crash between its append and the start)
 * is expired by the sweep once due. The same definition runs on Temporal in
 * requests-expiry-timeskip.test.ts.
 */
const HOUR = 3_600_000;

for (const target of databaseTargets) describe(`request expiry on ${target.name} (in-process engine, moved clock)`, () => {
  const clock = new SkewedClock();
  const { t, call, newAccount } = serviceSuite(target, {}, { clock, workflowSweepMs: 200, persistent: true });
  const owner = newAccount();
  const types = async (id: string) => (await t.service.deps.store.readStream(requestStream(id))).map((e) => e.type);

  it('keeps the timer over a restart and records the expiry once', async () => {
    const expiresAt = new Date(clock.now().getTime() + 5 * HOUR).toISOString();
    const res = await call('POST', '/v1/requests', { token: owner.token, json: { subject: 'Before the restart', expires_at: expiresAt } });
    expect(res.status).toBe(201);
    await t.settled();
    await t.restart();
    clock.advance(5 * HOUR - 60_000);
    await sleep(1_000);
    expect(await types(res.body.id)).toEqual(['RequestCreated']);
    clock.advance(61_000);
    await waitFor(async () => (await types(res.body.id)).includes('RequestExpired'), 'the expiry to be recorded after the restart');
    await sleep(1_000);
    expect((await types(res.body.id)).filter((e) => e === 'RequestExpired')).toHaveLength(1);
    expect((await call('GET', `/v1/requests/${res.body.id}`, { token: owner.token })).body.status).toBe('expired');
  });

  it('the sweep expires a request whose run was never started', async () => {
    const id = crypto.randomUUID();
    const now = clock.now();
    const expiresAt = new Date(now.getTime() + HOUR).toISOString();
    const context = { accountId: owner.account.id, actor: { type: 'user' as const, id: owner.user.id }, correlationId: id, causationId: id, processingRegion: 'eu', now };
    // What a process killed after the creation's append and before the start leaves.
    const { position } = await appendFacts(t.service.deps.store, requestStream(id), requestEvents, [
      {
        type: 'RequestCreated',
        data: { subject: 'Never started', instructions: '', mode: 'existing_original', expires_at: expiresAt, max_submissions: 1, share_with_provider: false, token: crypto.randomBytes(32).toString('base64url'), token_sha256: crypto.randomBytes(32).toString('hex'), created_at: now.toISOString() },
      },
    ], context);
    expect(await t.service.deps.readModels.waitFor(position, 30_000)).toBe(true);
    clock.advance(HOUR + 1_000);
    await waitFor(async () => (await types(id)).includes('RequestExpired'), 'the sweep to expire the request');
    const history = (await call('GET', `/v1/audit/streams/${requestStream(id)}`, { token: owner.token })).body.events;
    expect(history.at(-1)).toMatchObject({ type: 'RequestExpired', data: { expires_at: expiresAt }, metadata: { actor: { type: 'system', id: 'request-expiry' } } });
  });
});
