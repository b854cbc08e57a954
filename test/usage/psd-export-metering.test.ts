import crypto from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { CommandContext } from '../../src/core/es/decider.js';
import { KeyedLock } from '../../src/core/es/keyed-lock.js';
import { PostgresEventStore } from '../../src/adapters/eventstore/postgres.js';
import { assertPsdExportAllowed, meterPsdExport, releasePsdExport } from '../../src/features/usage/index.js';
import { databaseTargets } from '../support/databases.js';
import { callTool, connectMcp } from '../support/mcp.js';
import { serviceSuite } from '../support/suite.js';

/**
 * The usage side of PSD exports through its public entry, on the real service's store and read
 * models (the psd-export endpoints arrive with that feature): entitlement, the 50 included, the
 * one budget cap at its edge under concurrent requests, charge on completion, release on failure,
 * free regeneration, month boundaries, and what the usage view shows.
 */
const MARCH = new Date('2026-03-31T23:59:59.000Z');
const APRIL = new Date('2026-04-01T00:00:01.000Z');

for (const target of databaseTargets) {
  describe(`PSD export metering on ${target.name}`, () => {
    const { t, call, newAccount } = serviceSuite(target);
    const free = newAccount({ plan: 'free' });
    const basic = newAccount({ plan: 'basic', monthly_budget_cap_eur: 100 });
    const edge = newAccount({ plan: 'professional', monthly_budget_cap_eur: 1 });
    const months = newAccount({ plan: 'professional' });
    const lifecycle = newAccount({ plan: 'professional', billing_country: 'US' });

    const contextAt = (accountId: string, now: Date): CommandContext => {
      const correlationId = crypto.randomUUID();
      return { accountId, actor: { type: 'system', id: 'psd-export-test' }, correlationId, causationId: correlationId, processingRegion: t.service.deps.config.PROCESSING_REGION, now };
    };
    const request = (accountId: string, now: Date, extra: { exportId?: string; regeneration?: boolean } = {}) =>
      assertPsdExportAllowed(t.service.deps, contextAt(accountId, now), { accountId, verificationId: crypto.randomUUID(), exportId: extra.exportId ?? crypto.randomUUID(), regeneration: extra.regeneration });
    const charge = (accountId: string, exportId: string, requestedAt: Date, now = requestedAt) => ({ ctx: contextAt(accountId, now), input: { accountId, exportId, requestedAt } });
    /** `count` exports requested and completed, one after another, at `now`. */
    async function exported(accountId: string, count: number, now: Date): Promise<string[]> {
      const ids: string[] = [];
      for (let i = 0; i < count; i++) {
        const exportId = crypto.randomUUID();
        await request(accountId, now, { exportId });
        const { ctx, input } = charge(accountId, exportId, now);
        await meterPsdExport(t.service.deps, ctx, input);
        ids.push(exportId);
      }
      return ids;
    }
    const usage = async (account: { account: { id: string }; token: string }, month?: string) => {
      await t.settled();
      const res = await call('GET', `/v1/accounts/${account.account.id}/usage${month ? `?month=${month}` : ''}`, { token: account.token });
      expect(res.status).toBe(200);
      return res.body;
    };

    it('refuses Free and Basic with 403 NOT_ENTITLED and a suggestion to upgrade, regeneration too, and records nothing', async () => {
      const before = await t.eventCount();
      for (const account of [free, basic]) {
        await expect(request(account.account.id, new Date())).rejects.toMatchObject({ code: 'NOT_ENTITLED', suggestion: expect.stringMatching(/Upgrade the account to Professional/) });
        await expect(request(account.account.id, new Date(), { regeneration: true })).rejects.toMatchObject({ code: 'NOT_ENTITLED' });
      }
      expect(await t.eventCount()).toBe(before);
      expect((await usage(basic)).psd_exports).toEqual({ entitled: false, included: 0, included_used: 0, included_remaining: 0, in_progress: 0, overage_count: 0, overage_price: 0.5, overage_amount: 0 });
    });

    it('lets exactly the cap through when concurrent requests meet the budget edge (49 used, 1 included + 2 at 0.50 in a 1.00 cap)', async () => {
      const accountId = edge.account.id;
      const now = new Date();
      await exported(accountId, 49, now);
      // On PostgreSQL half the requests come from another process: its own store and locks over
      // the same database, so only the month stream's revision stands between them. (PGlite is
      // owned by one process, D-067.)
      const elsewhere = target.name === 'postgres' ? { ...t.service.deps, store: new PostgresEventStore(t.service.deps.knex), streamLocks: new KeyedLock() } : t.service.deps;
      const exportIds = Array.from({ length: 12 }, () => crypto.randomUUID());
      const outcomes = await Promise.allSettled(
        exportIds.map((exportId, i) =>
          assertPsdExportAllowed(i % 2 ? elsewhere : t.service.deps, contextAt(accountId, now), { accountId, verificationId: crypto.randomUUID(), exportId }),
        ),
      );
      const passed = exportIds.filter((_, i) => outcomes[i]?.status === 'fulfilled');
      expect(passed).toHaveLength(3);
      for (const outcome of outcomes.filter((o) => o.status === 'rejected')) expect(outcome.reason).toMatchObject({ code: 'BUDGET_EXCEEDED' });

      const held = await usage(edge);
      expect(held).toMatchObject({ monthly_budget_cap: 1, budget_used: 1, budget_remaining: 0 });
      expect(held.psd_exports).toEqual({ entitled: true, included: 50, included_used: 49, included_remaining: 0, in_progress: 3, overage_count: 0, overage_price: 0.5, overage_amount: 0 });

      // Completed, each charged once however often its completion is reported.
      for (const exportId of [...passed, ...passed]) {
        const { ctx, input } = charge(accountId, exportId, now);
        await meterPsdExport(t.service.deps, ctx, input);
      }
      const done = await usage(edge);
      expect(done).toMatchObject({ budget_used: 1, budget_remaining: 0, overage_count: 0, overage_amount: 0 });
      expect(done.psd_exports).toMatchObject({ included_used: 50, included_remaining: 0, in_progress: 0, overage_count: 2, overage_amount: 1 });
      // An agent is told the same, in words too.
      const key = await call('POST', '/v1/apikeys/', { token: edge.token, json: { account_id: accountId, scope: 'read' } });
      expect(key.status).toBe(201);
      const agent = await connectMcp(t.url, key.body.raw_key);
      try {
        const tool = await callTool(agent, 'get_account_usage', {});
        expect(tool.output.psd_exports).toEqual(done.psd_exports);
        expect(tool.result.content[0]).toMatchObject({ text: expect.stringContaining('PSD exports: 50 of 50 included made, 2 over the plan (1.00 EUR).') });
      } finally {
        await agent.close();
      }
    }, 5 * 60_000); // ~110 commands on one stream, sized for load 10

    it('charges on completion only: a retried request reserves once, release then meter charges nothing, a regeneration is free', async () => {
      const accountId = lifecycle.account.id;
      const now = new Date();
      const [failed, completed] = [crypto.randomUUID(), crypto.randomUUID()];
      await request(accountId, now, { exportId: failed });
      const afterFirst = await t.eventCount();
      await request(accountId, now, { exportId: failed }); // the same request again
      expect(await t.eventCount()).toBe(afterFirst);

      // It fails: given back (twice: idempotent); a late completion report charges nothing.
      for (let i = 0; i < 2; i++) {
        const { ctx, input } = charge(accountId, failed, now);
        await releasePsdExport(t.service.deps, ctx, input);
      }
      const { ctx, input } = charge(accountId, failed, now);
      await meterPsdExport(t.service.deps, ctx, input);
      expect((await usage(lifecycle)).psd_exports).toMatchObject({ included_used: 0, included_remaining: 50, in_progress: 0 });

      // Its regeneration reserves nothing, and its completion charges nothing.
      const regenerated = crypto.randomUUID();
      const beforeRegeneration = await t.eventCount();
      await request(accountId, now, { exportId: regenerated, regeneration: true });
      const done = charge(accountId, regenerated, now);
      await meterPsdExport(t.service.deps, done.ctx, done.input);
      expect(await t.eventCount()).toBe(beforeRegeneration);

      // A completed export stays charged: a failure reported after it releases nothing.
      await request(accountId, now, { exportId: completed });
      for (const act of [meterPsdExport, releasePsdExport]) {
        const c = charge(accountId, completed, now);
        await act(t.service.deps, c.ctx, c.input);
      }
      const view = await usage(lifecycle);
      expect(view).toMatchObject({ currency: 'USD', budget_used: 0, budget_remaining: 0 });
      expect(view.psd_exports).toMatchObject({ included_used: 1, included_remaining: 49, in_progress: 0, overage_count: 0 });
    });

    it("charges an export in the month it was requested in, and gives each month its own 50", async () => {
      const accountId = months.account.id;
      await exported(accountId, 49, MARCH);
      // The 50th, requested a second before April, completes in April: March's.
      const last = crypto.randomUUID();
      await request(accountId, MARCH, { exportId: last });
      const { ctx, input } = charge(accountId, last, MARCH, APRIL);
      await meterPsdExport(t.service.deps, ctx, input);
      // The 51st in March passes no budget (none set); April starts again at 0 of 50.
      await expect(request(accountId, MARCH)).rejects.toMatchObject({ code: 'BUDGET_EXCEEDED', details: { included: 50, month: '2026-03', budget_cap: 0 } });
      await request(accountId, APRIL);
      expect((await usage(months, '2026-03')).psd_exports).toMatchObject({ included_used: 50, included_remaining: 0, in_progress: 0 });
      expect((await usage(months, '2026-04')).psd_exports).toMatchObject({ included_used: 0, included_remaining: 49, in_progress: 1 });
    }, 5 * 60_000);
  });
}
