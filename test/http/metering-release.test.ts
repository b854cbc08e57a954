import crypto from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCommand } from '../../src/core/es/decider.js';
import { usageDecider, usageStream } from '../../src/features/usage/decider.js';
import { monthOf } from '../../src/features/usage/plans.js';
import { createMeteringReleaseActivities, meteringReleaseSweep } from '../../src/features/usage/release-activities.js';
import { databaseTargets } from '../support/databases.js';
import { client, registerAccount, startTestService, uploadImage, type TestService } from '../support/service.js';

/**
 * A reservation metered for a verification that was never queued (a process killed between the
 * usage stream's append and the verification stream's, issue 21) is released by the metering
 * release sweep once it is older than the grace period, exactly once, and usage stops counting
 * it. The reservations are appended through the usage decider straight to the store, with the
 * `now` the killed request had.
 */
const SWEEP_MS = 200;

for (const target of databaseTargets) {
  describe(`reservations a crash left without their verification, on ${target.name}`, () => {
    let t: TestService;
    let call: ReturnType<typeof client>;
    let token: string;
    let accountId: string;

    const events = async (type: string) => (await t.service.deps.store.readAll({ after: 0n, limit: 1_000_000 })).filter((e) => e.type === type);
    /** What the killed request recorded: VerificationMetered at `now`, nothing else. */
    async function meterAt(verificationId: string, now: Date) {
      const month = monthOf(now);
      const context = { accountId, actor: { type: 'user' as const, id: accountId }, correlationId: crypto.randomUUID(), causationId: crypto.randomUUID(), processingRegion: t.service.deps.config.PROCESSING_REGION, now };
      const outcome = await runCommand(t.service.deps.store, usageStream(accountId, month), usageDecider, { type: 'Meter', account_id: accountId, month, verification_id: verificationId, plan: 'free', budget_cap: null, now }, context);
      expect(outcome.events.map((e) => e.type)).toEqual(['VerificationMetered']);
    }
    const used = async (month: string) => (await call('GET', `/v1/accounts/${accountId}/usage?month=${month}`, { token })).body.included_used as number;

    beforeAll(async () => {
      t = await startTestService(target, {}, { workflowSweepMs: SWEEP_MS });
      call = client(t.url);
      const registered = await registerAccount(call);
      token = registered.token;
      accountId = registered.account.id;
    });
    afterAll(async () => {
      await t?.stop();
    });

    it('an orphan past the grace period is released once; a fresh one and one whose verification exists are not', async () => {
      const old = new Date(Date.now() - 4 * t.service.deps.config.METERING_RELEASE_GRACE_MS);
      const fresh = new Date(Date.now() - 60_000);
      const month = monthOf(old);
      // A verification that exists (image-only, so its upload metered nothing), metered long ago all the same.
      const existing = await uploadImage(t.url, token);
      await t.settled();
      const orphan = crypto.randomUUID();
      const young = crypto.randomUUID();
      await meterAt(existing, old);
      await meterAt(young, fresh);
      await meterAt(orphan, old);

      for (let i = 0; i < 600 && (await events('MeteringReleased')).length === 0; i++) await new Promise((r) => setTimeout(r, 100));
      await t.settled();
      const released = await events('MeteringReleased');
      expect(released.map((e) => e.data.verification_id)).toEqual([orphan]);
      // The release is in the month stream the reservation was metered in.
      expect(released[0]!.stream).toBe(usageStream(accountId, month));
      // Usage counts the existing verification's reservation (and the young one's, same month), not the orphan's.
      expect(await used(month)).toBe(1 + (monthOf(fresh) === month ? 1 : 0));

      // Later sweeps add nothing, and find nothing more to do.
      await new Promise((r) => setTimeout(r, 10 * SWEEP_MS));
      await t.settled();
      expect(await events('MeteringReleased')).toHaveLength(1);
      expect(await meteringReleaseSweep(t.service.deps.config.METERING_RELEASE_GRACE_MS)({ knex: t.service.deps.knex, now: new Date() })).toEqual([]);
    });

    it('the activity re-reads the verification stream: a verification queued there keeps its reservation, and a second release appends nothing', async () => {
      const activities = createMeteringReleaseActivities(t.service.deps);
      const existing = await uploadImage(t.url, token);
      const month = monthOf(new Date());
      await meterAt(existing, new Date());
      expect(await activities.releaseOrphanedMetering({} as never, { account_id: accountId, verification_id: existing, month })).toBe('queued');
      const orphan = crypto.randomUUID();
      await meterAt(orphan, new Date());
      const before = (await events('MeteringReleased')).length;
      expect(await activities.releaseOrphanedMetering({} as never, { account_id: accountId, verification_id: orphan, month })).toBe('released');
      expect(await activities.releaseOrphanedMetering({} as never, { account_id: accountId, verification_id: orphan, month })).toBe('released');
      const released = await events('MeteringReleased');
      expect(released).toHaveLength(before + 1);
      expect(released.filter((e) => e.data.verification_id === existing)).toHaveLength(0);
    });
  });
}
