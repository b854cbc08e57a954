import { AppError } from '../../core/errors.js';
import type { Plan } from '../accounts/events.js';
import type { Decider } from '../../core/decider.js';
import { assertNever } from '../../core/events.js';
import { usageEvents, type UsageEvent } from './events.js';
import { includedPerMonth, OVERAGE_PRICE } from './plans.js';
import { streamName } from '../../core/streams.js';

/** One stream per account and calendar month: its revision serialises reservations at the quota edge. */
export const usageStream = (accountId: string, month: string) => streamName('usage', `${accountId}-${month}`);

export type UsageCommand =
  | {
      type: 'Meter';
      account_id: string;
      month: string;
      verification_id: string;
      plan: Plan;
      /** Monthly overage budget; null or 0 = no overage allowed. */
      budget_cap: number | null;
      now: Date;
    }
  | { type: 'Release'; verification_id: string; now: Date };

export interface UsageState {
  metered: Map<string, { overage: boolean; price: number }>;
}

const spent = (state: UsageState) => [...state.metered.values()].reduce((sum, m) => sum + m.price, 0);

export const usageDecider: Decider<UsageState, UsageCommand, typeof usageEvents> = {
  catalogue: usageEvents,
  initialState: () => ({ metered: new Map() }),
  evolve(state, event) {
    const metered = new Map(state.metered);
    switch (event.type) {
      case 'VerificationMetered':
        metered.set(event.data.verification_id, { overage: event.data.overage, price: event.data.price });
        return { metered };
      case 'MeteringReleased':
        metered.delete(event.data.verification_id);
        return { metered };
      default:
        return assertNever(event);
    }
  },
  decide(command, state): UsageEvent[] {
    switch (command.type) {
      case 'Meter': {
        if (state.metered.has(command.verification_id)) return [];
        const included = includedPerMonth[command.plan];
        const used = [...state.metered.values()].filter((m) => !m.overage).length;
        const base = { account_id: command.account_id, month: command.month, verification_id: command.verification_id, metered_at: command.now.toISOString() };
        if (included === null || used < included) return [{ type: 'VerificationMetered', data: { ...base, overage: false, price: 0 } }];
        const cap = command.plan === 'free' ? 0 : (command.budget_cap ?? 0);
        // Cents, so 0.25 steps never drift in floating point.
        if (Math.round(spent(state) * 100) + Math.round(OVERAGE_PRICE * 100) <= Math.round(cap * 100)) {
          return [{ type: 'VerificationMetered', data: { ...base, overage: true, price: OVERAGE_PRICE } }];
        }
        throw new AppError(
          'QUOTA_EXCEEDED',
          command.plan === 'free'
            ? `The Free plan includes ${included} RAW+image verifications per month; this month's are used.`
            : `This month's ${included} included verifications and the overage budget of ${cap.toFixed(2)} are used.`,
          {
            suggestion:
              command.plan === 'free'
                ? 'Upgrade to a paid plan, wait for next month, or verify image-only (free).'
                : 'Raise the monthly budget cap on the account, or wait for next month. Image-only verifications stay free.',
            details: { plan: command.plan, included, month: command.month },
          },
        );
      }
      case 'Release':
        return state.metered.has(command.verification_id) ? [{ type: 'MeteringReleased', data: { verification_id: command.verification_id, released_at: command.now.toISOString() } }] : [];
      default:
        return assertNever(command);
    }
  },
};
