import { describe, expect, it } from 'vitest';
import { given } from '../../../test/support/decider-spec.js';
import type { Plan } from '../accounts/events.js';
import { usageDecider, type UsageCommand } from './decider.js';
import type { UsageEvent } from './events.js';
import { OVERAGE_PRICE, PSD_EXPORT_OVERAGE_PRICE } from './plans.js';

const ACCOUNT = '0a000000-0000-4000-8000-000000000001';
const MONTH = '2026-03';
const NOW = new Date('2026-03-15T10:00:00.000Z');
const verification = (n: number) => `0d000000-0000-4000-8000-${n.toString().padStart(12, '0')}`;
const NEXT = verification(999);

const meteredEvent = (id: string, overage = false): UsageEvent => ({
  type: 'VerificationMetered',
  data: { account_id: ACCOUNT, month: MONTH, verification_id: id, overage, price: overage ? OVERAGE_PRICE : 0, metered_at: NOW.toISOString() },
});
const released = (id: string): UsageEvent => ({ type: 'MeteringReleased', data: { verification_id: id, released_at: NOW.toISOString() } });
/** `count` verifications metered, numbered from `from`. */
const metered = (count: number, { overage = false, from = 1 } = {}) =>
  Array.from({ length: count }, (_, i) => meteredEvent(verification(from + i), overage));

const meter = (plan: Plan, budget_cap: number | null = null, id = NEXT): UsageCommand => ({
  type: 'Meter',
  account_id: ACCOUNT,
  month: MONTH,
  verification_id: id,
  plan,
  budget_cap,
  now: NOW,
});
const release = (id: string): UsageCommand => ({ type: 'Release', verification_id: id, now: NOW });

describe('usageDecider', () => {
  describe('given no usage this month', () => {
    it('Meter on the Free plan counts the verification as included, at no charge', () => {
      given(usageDecider, []).when(meter('free')).then([meteredEvent(NEXT)]);
    });

    it('Meter on the Enterprise plan counts the verification as included', () => {
      given(usageDecider, []).when(meter('enterprise')).then([meteredEvent(NEXT)]);
    });

    it('Release of a verification never metered decides nothing', () => {
      given(usageDecider, []).when(release(NEXT)).thenNothing();
    });
  });

  describe('given a verification metered', () => {
    const history = [meteredEvent(NEXT)];

    it('Meter for the same verification again decides nothing (idempotent)', () => {
      given(usageDecider, history).when(meter('free')).thenNothing();
    });

    it('Release of it releases the reservation', () => {
      given(usageDecider, history).when(release(NEXT)).then([released(NEXT)]);
    });
  });

  describe('given a metered verification released', () => {
    const history = [meteredEvent(NEXT), released(NEXT)];

    it('Release again decides nothing (idempotent)', () => {
      given(usageDecider, history).when(release(NEXT)).thenNothing();
    });

    it('Meter for it again reserves it anew', () => {
      given(usageDecider, history).when(meter('free')).then([meteredEvent(NEXT)]);
    });
  });

  describe('given the Free allowance used (5 included)', () => {
    const history = metered(5);

    it('Meter on the Free plan is rejected with QUOTA_EXCEEDED', () => {
      const error = given(usageDecider, history).when(meter('free')).thenThrows('QUOTA_EXCEEDED', /Free plan includes 5/);
      expect(error.details).toEqual({ plan: 'free', included: 5, month: MONTH });
      expect(error.suggestion).toMatch(/Upgrade/);
    });

    it('Meter on the Free plan is rejected even with a budget cap (the Free plan has no overage)', () => {
      given(usageDecider, history).when(meter('free', 100)).thenThrows('QUOTA_EXCEEDED');
    });

    it('Meter for a verification already metered decides nothing, although the allowance is used', () => {
      given(usageDecider, history).when(meter('free', null, verification(3))).thenNothing();
    });

    it('Meter after one reservation was released uses the freed allowance', () => {
      given(usageDecider, [...history, released(verification(2))]).when(meter('free')).then([meteredEvent(NEXT)]);
    });

    it('Meter after an upgrade to Basic counts against the Basic allowance (included)', () => {
      given(usageDecider, history).when(meter('basic')).then([meteredEvent(NEXT)]);
    });
  });

  describe('given the Basic allowance used (25 included)', () => {
    const history = metered(25);

    it('Meter with no budget cap is rejected with QUOTA_EXCEEDED', () => {
      const error = given(usageDecider, history).when(meter('basic', null)).thenThrows('QUOTA_EXCEEDED', /25 included verifications and the overage budget of 0\.00/);
      expect(error.details).toEqual({ plan: 'basic', included: 25, month: MONTH });
      expect(error.suggestion).toMatch(/Raise the monthly budget cap/);
    });

    it('Meter with a budget cap of 0 is rejected with QUOTA_EXCEEDED', () => {
      given(usageDecider, history).when(meter('basic', 0)).thenThrows('QUOTA_EXCEEDED');
    });

    it('Meter with a budget cap below one overage price is rejected with QUOTA_EXCEEDED', () => {
      given(usageDecider, history).when(meter('basic', 0.1)).thenThrows('QUOTA_EXCEEDED', /overage budget of 0\.10/);
    });

    it('Meter with a budget cap of exactly one overage price meters an overage verification', () => {
      given(usageDecider, history).when(meter('basic', OVERAGE_PRICE)).then([meteredEvent(NEXT, true)]);
    });

    it('Meter on the Enterprise plan (no monthly limit) counts the verification as included', () => {
      given(usageDecider, history).when(meter('enterprise')).then([meteredEvent(NEXT)]);
    });

    it('Meter on the Professional plan (500 included) counts the verification as included', () => {
      given(usageDecider, history).when(meter('professional')).then([meteredEvent(NEXT)]);
    });
  });

  describe('given the Basic allowance used and 1.00 spent on overage (4 verifications)', () => {
    const history = [...metered(25), ...metered(4, { overage: true, from: 26 })];

    it('Meter with a budget cap of 1.00 is rejected with QUOTA_EXCEEDED (the budget is spent)', () => {
      given(usageDecider, history).when(meter('basic', 1)).thenThrows('QUOTA_EXCEEDED', /overage budget of 1\.00/);
    });

    it('Meter with a budget cap of 1.24 is rejected with QUOTA_EXCEEDED (one more would exceed it)', () => {
      given(usageDecider, history).when(meter('basic', 1.24)).thenThrows('QUOTA_EXCEEDED');
    });

    it('Meter with a budget cap of 1.25 meters one more overage verification', () => {
      given(usageDecider, history).when(meter('basic', 1.25)).then([meteredEvent(NEXT, true)]);
    });

    it('Meter after an overage reservation was released fits the 1.00 budget again', () => {
      given(usageDecider, [...history, released(verification(27))]).when(meter('basic', 1)).then([meteredEvent(NEXT, true)]);
    });

    it('Meter after an included reservation was released is included again, whatever the budget', () => {
      given(usageDecider, [...history, released(verification(3))]).when(meter('basic', null)).then([meteredEvent(NEXT)]);
    });
  });

  describe('given the Basic allowance used and 0.50 spent on overage (a budget met to the cent)', () => {
    const history = [...metered(25), ...metered(2, { overage: true, from: 26 })];

    it('Meter with a 0.75 cap after 0.50 spent meters the third overage verification', () => {
      given(usageDecider, history).when(meter('basic', 0.75)).then([meteredEvent(NEXT, true)]);
    });

    it('Meter with a 0.75 cap after 0.75 spent is rejected with QUOTA_EXCEEDED', () => {
      given(usageDecider, [...history, meteredEvent(verification(28), true)]).when(meter('basic', 0.75)).thenThrows('QUOTA_EXCEEDED');
    });
  });

  describe('PSD exports', () => {
    const VERIFICATION = verification(500);
    const exportId = (n: number) => `0e000000-0000-4000-8000-${n.toString().padStart(12, '0')}`;
    const NEXT_EXPORT = exportId(999);
    const reservedEvent = (id: string, overage = false): UsageEvent => ({
      type: 'PsdExportReserved',
      data: { account_id: ACCOUNT, month: MONTH, verification_id: VERIFICATION, export_id: id, overage, price: overage ? PSD_EXPORT_OVERAGE_PRICE : 0, reserved_at: NOW.toISOString() },
    });
    const meteredExport = (id: string): UsageEvent => ({ type: 'PsdExportMetered', data: { export_id: id, verification_id: VERIFICATION, metered_at: NOW.toISOString() } });
    const releasedExport = (id: string): UsageEvent => ({ type: 'PsdExportReleased', data: { export_id: id, verification_id: VERIFICATION, released_at: NOW.toISOString() } });
    /** `count` exports reserved and completed (charged), numbered from `from`. */
    const charged = (count: number, { overage = false, from = 1 } = {}) =>
      Array.from({ length: count }, (_, i) => [reservedEvent(exportId(from + i), overage), meteredExport(exportId(from + i))]).flat();

    const reserve = (plan: Plan, budget_cap: number | null = null, id = NEXT_EXPORT): UsageCommand => ({
      type: 'ReservePsdExport',
      account_id: ACCOUNT,
      month: MONTH,
      verification_id: VERIFICATION,
      export_id: id,
      plan,
      budget_cap,
      now: NOW,
    });
    const meterExport = (id = NEXT_EXPORT): UsageCommand => ({ type: 'MeterPsdExport', export_id: id, now: NOW });
    const releaseExport = (id = NEXT_EXPORT): UsageCommand => ({ type: 'ReleasePsdExport', export_id: id, now: NOW });

    describe('entitlement per plan (no usage this month)', () => {
      it('ReservePsdExport on the Free plan is refused with NOT_ENTITLED, suggesting an upgrade', () => {
        const error = given(usageDecider, []).when(reserve('free', 100)).thenThrows('NOT_ENTITLED', /Professional and Enterprise.*Free plan/);
        expect(error.details).toEqual({ plan: 'free' });
        expect(error.suggestion).toMatch(/Upgrade the account to Professional/);
      });

      it('ReservePsdExport on the Basic plan is refused with NOT_ENTITLED, whatever the budget', () => {
        given(usageDecider, []).when(reserve('basic', 100)).thenThrows('NOT_ENTITLED', /Basic plan/);
      });

      it('ReservePsdExport on the Professional plan reserves an included export, at no charge', () => {
        given(usageDecider, []).when(reserve('professional')).then([reservedEvent(NEXT_EXPORT)]);
      });

      it('ReservePsdExport on the Enterprise plan reserves an included export', () => {
        given(usageDecider, []).when(reserve('enterprise')).then([reservedEvent(NEXT_EXPORT)]);
      });
    });

    describe('given 49 exports charged on Professional', () => {
      it('ReservePsdExport of the 51st when the 50th is in progress is refused with BUDGET_EXCEEDED (no cap)', () => {
        given(usageDecider, [...charged(49), reservedEvent(exportId(50))]).when(reserve('professional', null)).thenThrows('BUDGET_EXCEEDED');
      });

      const history = charged(49);

      it('ReservePsdExport of the 50th is included, with no budget cap', () => {
        given(usageDecider, history).when(reserve('professional', null)).then([reservedEvent(NEXT_EXPORT)]);
      });

      it('ReservePsdExport of the 50th is included when another one failed (a released export frees its place)', () => {
        given(usageDecider, [reservedEvent(exportId(50)), releasedExport(exportId(50)), ...history]).when(reserve('professional', null)).then([reservedEvent(NEXT_EXPORT)]);
      });

      it('ReservePsdExport of the 50th is included while the 49th is still in progress (a reservation holds its place)', () => {
        given(usageDecider, [...charged(48), reservedEvent(exportId(49))]).when(reserve('professional', null)).then([reservedEvent(NEXT_EXPORT)]);
      });
    });

    describe('given the 50 included exports used on Professional', () => {
      const history = charged(50);

      it('ReservePsdExport of the 51st with no budget cap is refused with BUDGET_EXCEEDED', () => {
        const error = given(usageDecider, history).when(reserve('professional', null)).thenThrows('BUDGET_EXCEEDED', /50 included PSD exports.*budget cap of 0\.00/);
        expect(error.details).toEqual({ plan: 'professional', included: 50, month: MONTH, budget_cap: 0, budget_used: 0, price: PSD_EXPORT_OVERAGE_PRICE });
        expect(error.suggestion).toMatch(/Raise the monthly budget cap/);
      });

      it('ReservePsdExport of the 51st with a cap below 0.50 is refused with BUDGET_EXCEEDED', () => {
        given(usageDecider, history).when(reserve('professional', 0.49)).thenThrows('BUDGET_EXCEEDED');
      });

      it('ReservePsdExport of the 51st with a cap of exactly 0.50 reserves an overage export at 0.50', () => {
        given(usageDecider, history).when(reserve('professional', 0.5)).then([reservedEvent(NEXT_EXPORT, true)]);
      });

      it('ReservePsdExport on Enterprise (by contract) is included, with no budget cap', () => {
        given(usageDecider, history).when(reserve('enterprise', null)).then([reservedEvent(NEXT_EXPORT)]);
      });

      it('ReservePsdExport for an export already reserved decides nothing, at the edge (idempotent)', () => {
        given(usageDecider, history).when(reserve('professional', null, exportId(50))).thenNothing();
      });

      it('ReservePsdExport for an export already reserved is still refused once the plan is below Professional', () => {
        given(usageDecider, history).when(reserve('basic', null, exportId(50))).thenThrows('NOT_ENTITLED');
      });
    });

    describe('the budget cap edge: one cap for verifications and exports', () => {
      // Professional's 500 included verifications used, then `count` at 0.25 each.
      const verificationsOver = (count: number) => [...metered(500), ...metered(count, { overage: true, from: 501 })];

      it('given 1.00 of a 1.50 cap spent on export overage, ReservePsdExport reserves one more (1.50 exactly)', () => {
        given(usageDecider, [...charged(50), ...charged(2, { overage: true, from: 51 })]).when(reserve('professional', 1.5)).then([reservedEvent(NEXT_EXPORT, true)]);
      });

      it('given 1.50 of a 1.50 cap spent on export overage, ReservePsdExport is refused with BUDGET_EXCEEDED', () => {
        given(usageDecider, [...charged(50), ...charged(3, { overage: true, from: 51 })]).when(reserve('professional', 1.5)).thenThrows('BUDGET_EXCEEDED', /1\.50 of it used/);
      });

      it('given 1.00 of export overage in progress (reserved, not completed) of a 1.25 cap, ReservePsdExport is refused', () => {
        given(usageDecider, [...charged(50), reservedEvent(exportId(51), true), reservedEvent(exportId(52), true)]).when(reserve('professional', 1.25)).thenThrows('BUDGET_EXCEEDED');
      });

      it('given 0.75 of verification overage of a 1.25 cap, ReservePsdExport of an overage export fits (1.25 exactly)', () => {
        given(usageDecider, [...verificationsOver(3), ...charged(50)]).when(reserve('professional', 1.25)).then([reservedEvent(NEXT_EXPORT, true)]);
      });

      it('given 1.00 of verification overage of a 1.25 cap, ReservePsdExport of an overage export is refused (it would pass the cap)', () => {
        given(usageDecider, [...verificationsOver(4), ...charged(50)]).when(reserve('professional', 1.25)).thenThrows('BUDGET_EXCEEDED');
      });

      it('given 0.50 of export overage of a 0.75 cap, Meter of an overage verification fits (0.75 exactly)', () => {
        given(usageDecider, [...metered(500), ...charged(50), ...charged(1, { overage: true, from: 51 })]).when(meter('professional', 0.75)).then([meteredEvent(NEXT, true)]);
      });

      it('given 0.50 of export overage in progress of a 0.50 cap, Meter of an overage verification is refused with QUOTA_EXCEEDED', () => {
        given(usageDecider, [...metered(500), ...charged(50), reservedEvent(exportId(51), true)]).when(meter('professional', 0.5)).thenThrows('QUOTA_EXCEEDED');
      });

      it('given an overage export released (failed), its 0.50 is free again for ReservePsdExport', () => {
        given(usageDecider, [...charged(50), reservedEvent(exportId(51), true), releasedExport(exportId(51))]).when(reserve('professional', 0.5)).then([reservedEvent(NEXT_EXPORT, true)]);
      });
    });

    describe('given an export reserved (in progress)', () => {
      const history = [reservedEvent(NEXT_EXPORT)];

      it('MeterPsdExport charges it (completion)', () => {
        given(usageDecider, history).when(meterExport()).then([meteredExport(NEXT_EXPORT)]);
      });

      it('ReleasePsdExport gives it back (failure)', () => {
        given(usageDecider, history).when(releaseExport()).then([releasedExport(NEXT_EXPORT)]);
      });

      it('MeterPsdExport of another export, never reserved (a regeneration), decides nothing', () => {
        given(usageDecider, history).when(meterExport(exportId(1))).thenNothing();
      });
    });

    describe('given an export charged', () => {
      const history = [reservedEvent(NEXT_EXPORT), meteredExport(NEXT_EXPORT)];

      it('MeterPsdExport again decides nothing (a retried or resumed completion charges once)', () => {
        given(usageDecider, history).when(meterExport()).thenNothing();
      });

      it('ReleasePsdExport decides nothing (a completed export stays charged)', () => {
        given(usageDecider, history).when(releaseExport()).thenNothing();
      });
    });

    describe('given an export released (failed)', () => {
      const history = [reservedEvent(NEXT_EXPORT, true), releasedExport(NEXT_EXPORT)];

      it('MeterPsdExport decides nothing (release then meter: a failed export is never charged)', () => {
        given(usageDecider, history).when(meterExport()).thenNothing();
      });

      it('ReleasePsdExport again decides nothing (idempotent)', () => {
        given(usageDecider, history).when(releaseExport()).thenNothing();
      });

      it('ReservePsdExport under its id decides nothing (an export id is reserved once: its regeneration is free)', () => {
        given(usageDecider, history).when(reserve('professional', 10)).thenNothing();
      });
    });

    describe('month boundaries: each month is its own stream', () => {
      it("given nothing in this month's stream (last month's 50 were in last month's), ReservePsdExport is included again", () => {
        given(usageDecider, []).when(reserve('professional', null)).then([reservedEvent(NEXT_EXPORT)]);
      });

      it("MeterPsdExport on a month's stream without the reservation (it was reserved in the month before) decides nothing", () => {
        given(usageDecider, charged(3)).when(meterExport()).thenNothing();
      });
    });
  });
});
