import { describe, expect, it } from 'vitest';
import { given } from '../../../test/support/decider-spec.js';
import type { Plan } from '../accounts/events.js';
import { usageDecider, type UsageCommand } from './decider.js';
import type { UsageEvent } from './events.js';
import { OVERAGE_PRICE } from './plans.js';

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
});
