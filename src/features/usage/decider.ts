import { AppError } from '../../core/errors.js';
import type { Plan } from '../accounts/events.js';
import type { Decider } from '../../core/es/decider.js';
import { assertNever } from '../../core/es/events.js';
import { usageEvents, type UsageEvent } from './events.js';
import { includedPerMonth, OVERAGE_PRICE, PSD_EXPORT_OVERAGE_PRICE, psdExportEntitled, psdExportsIncluded } from './plans.js';
import { streamName } from '../../core/es/streams.js';

/** One stream per account and calendar month: its revision serialises reservations at the quota and budget edge. */
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
  | { type: 'Release'; verification_id: string; now: Date }
  | {
      type: 'ReservePsdExport';
      account_id: string;
      month: string;
      verification_id: string;
      export_id: string;
      plan: Plan;
      /** The same monthly overage budget as verifications'; null or 0 = no overage allowed. */
      budget_cap: number | null;
      now: Date;
    }
  | { type: 'MeterPsdExport'; export_id: string; now: Date }
  | { type: 'ReleasePsdExport'; export_id: string; now: Date };

/** A PSD export's place in the month: reserved at request, then charged (completed) or released (failed). */
export interface PsdExportUse {
  verification_id: string;
  overage: boolean;
  price: number;
  status: 'reserved' | 'charged' | 'released';
}

export interface UsageState {
  metered: Map<string, { overage: boolean; price: number }>;
  /** Every export reserved this month, released ones kept: an export id is reserved once. */
  exports: Map<string, PsdExportUse>;
}

const cents = (amount: number) => Math.round(amount * 100);

/**
 * The month's overage that the budget cap covers, in cents: verifications' and PSD exports',
 * charged or still reserved (an export in progress holds its place until it completes or fails).
 */
export const budgetUsedCents = (state: UsageState): number =>
  [...state.metered.values()].reduce((sum, m) => sum + cents(m.price), 0) +
  [...state.exports.values()].filter((e) => e.status !== 'released').reduce((sum, e) => sum + cents(e.price), 0);

/** The cap that applies: the Free plan has no overage whatever its setting. */
const effectiveCap = (plan: Plan, budgetCap: number | null) => (plan === 'free' ? 0 : (budgetCap ?? 0));

/** 403 NOT_ENTITLED below Professional (spec 4.1, 7). Pure: the decider and a regeneration's check share it. */
export function assertPsdExportEntitled(plan: Plan): void {
  if (psdExportEntitled[plan]) return;
  throw new AppError('NOT_ENTITLED', `Layered PSD exports are part of the Professional and Enterprise plans; this account is on the ${plan === 'free' ? 'Free' : 'Basic'} plan.`, {
    suggestion: 'Upgrade the account to Professional (50 PSD exports a month included): the get_upgrade_link tool, or PATCH /v1/accounts/{account_id} as an admin.',
    details: { plan },
  });
}

function reservePsdExport(command: Extract<UsageCommand, { type: 'ReservePsdExport' }>, state: UsageState): UsageEvent[] {
  assertPsdExportEntitled(command.plan);
  // Idempotent per export, whatever became of it: a retried request reserves once, and an
  // export released (failed) is not reserved again under its id.
  if (state.exports.has(command.export_id)) return [];
  const included = psdExportsIncluded[command.plan];
  const used = [...state.exports.values()].filter((e) => e.status !== 'released' && !e.overage).length;
  const base = { account_id: command.account_id, month: command.month, verification_id: command.verification_id, export_id: command.export_id, reserved_at: command.now.toISOString() };
  if (included === null || used < included) return [{ type: 'PsdExportReserved', data: { ...base, overage: false, price: 0 } }];
  const cap = effectiveCap(command.plan, command.budget_cap);
  const usedCents = budgetUsedCents(state);
  if (usedCents + cents(PSD_EXPORT_OVERAGE_PRICE) <= cents(cap)) return [{ type: 'PsdExportReserved', data: { ...base, overage: true, price: PSD_EXPORT_OVERAGE_PRICE } }];
  throw new AppError(
    'BUDGET_EXCEEDED',
    `This month's ${included} included PSD exports are used, and one more at ${PSD_EXPORT_OVERAGE_PRICE.toFixed(2)} would pass the monthly budget cap of ${cap.toFixed(2)} (${(usedCents / 100).toFixed(2)} of it used).`,
    {
      suggestion: 'Raise the monthly budget cap on the account (PATCH /v1/accounts/{account_id} as an admin), or wait for next month.',
      details: { plan: command.plan, included, month: command.month, budget_cap: cap, budget_used: usedCents / 100, price: PSD_EXPORT_OVERAGE_PRICE },
    },
  );
}

export const usageDecider: Decider<UsageState, UsageCommand, typeof usageEvents> = {
  catalogue: usageEvents,
  initialState: () => ({ metered: new Map(), exports: new Map() }),
  evolve(state, event) {
    switch (event.type) {
      case 'VerificationMetered': {
        const metered = new Map(state.metered);
        metered.set(event.data.verification_id, { overage: event.data.overage, price: event.data.price });
        return { ...state, metered };
      }
      case 'MeteringReleased': {
        const metered = new Map(state.metered);
        metered.delete(event.data.verification_id);
        return { ...state, metered };
      }
      case 'PsdExportReserved': {
        const exports = new Map(state.exports);
        exports.set(event.data.export_id, { verification_id: event.data.verification_id, overage: event.data.overage, price: event.data.price, status: 'reserved' });
        return { ...state, exports };
      }
      case 'PsdExportMetered':
      case 'PsdExportReleased': {
        const use = state.exports.get(event.data.export_id);
        if (!use) return state;
        const exports = new Map(state.exports);
        exports.set(event.data.export_id, { ...use, status: event.type === 'PsdExportMetered' ? 'charged' : 'released' });
        return { ...state, exports };
      }
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
        const cap = effectiveCap(command.plan, command.budget_cap);
        // Cents, so 0.25 steps never drift in floating point; the cap covers exports' overage too.
        if (budgetUsedCents(state) + cents(OVERAGE_PRICE) <= cents(cap)) {
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
      case 'ReservePsdExport':
        return reservePsdExport(command, state);
      case 'MeterPsdExport': {
        // Only a reservation becomes a charge: charged already, released, or never reserved (a free regeneration) decides nothing.
        const use = state.exports.get(command.export_id);
        return use?.status === 'reserved' ? [{ type: 'PsdExportMetered', data: { export_id: command.export_id, verification_id: use.verification_id, metered_at: command.now.toISOString() } }] : [];
      }
      case 'ReleasePsdExport': {
        // A charged (completed) export stays charged; released or never reserved decides nothing.
        const use = state.exports.get(command.export_id);
        return use?.status === 'reserved' ? [{ type: 'PsdExportReleased', data: { export_id: command.export_id, verification_id: use.verification_id, released_at: command.now.toISOString() } }] : [];
      }
      default:
        return assertNever(command);
    }
  },
};
