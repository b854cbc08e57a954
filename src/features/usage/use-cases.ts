import type { AppDeps } from '../../core/deps.js';
import { assertAccountAccess, type Principal } from '../../core/principal.js';
import type { Plan } from '../accounts/events.js';
import { billingCurrency, findAccount } from '../accounts/index.js';
import { includedPerMonth, monthOf, OVERAGE_PRICE, PSD_EXPORT_OVERAGE_PRICE, psdExportEntitled, psdExportsIncluded } from './plans.js';
import { chargedMeterings, heldPsdExports } from './queries.js';

export interface MonthlyUsage {
  account_id: string;
  month: string;
  plan: Plan;
  currency: 'EUR' | 'USD';
  included: number | null;
  included_used: number;
  included_remaining: number | null;
  overage_count: number;
  overage_price: number;
  overage_amount: number;
  monthly_budget_cap: number | null;
  /** The month's overage the cap covers: verifications', and PSD exports' charged or in progress. */
  budget_used: number;
  /** What the cap leaves for more overage (0 without a cap, and always on the Free plan). */
  budget_remaining: number;
  psd_exports: PsdExportUsage;
}

export interface PsdExportUsage {
  entitled: boolean;
  included: number | null;
  included_used: number;
  included_remaining: number | null;
  in_progress: number;
  overage_count: number;
  overage_price: number;
  overage_amount: number;
}

const cents = (amount: number) => Math.round(amount * 100);

/** The account's metered usage for a calendar month (UTC; default: the current one). */
export async function getMonthlyUsage(deps: AppDeps, principal: Principal, accountId: string, month: string = monthOf(deps.now())): Promise<MonthlyUsage> {
  assertAccountAccess(principal, accountId);
  const account = await findAccount(deps.knex, accountId);
  if (!account) throw new Error(`account ${accountId} is missing from the read model`);
  const rows = await chargedMeterings(deps.knex, accountId, month);
  const included = includedPerMonth[account.plan];
  const used = rows.filter((r) => !r.overage).length;
  const overage = rows.filter((r) => r.overage);
  const exports = await heldPsdExports(deps.knex, accountId, month);
  const budgetCap = account.monthly_budget_cap_eur === null ? null : Number(account.monthly_budget_cap_eur);
  // Cents, as the decider sums them, so the view says what the next request is decided on.
  const budgetUsed = [...overage, ...exports].reduce((sum, r) => sum + cents(Number(r.price)), 0);
  const budgetCapCents = account.plan === 'free' ? 0 : cents(budgetCap ?? 0);
  return {
    account_id: accountId,
    month,
    plan: account.plan,
    // Same numbers in either currency (spec 1).
    currency: billingCurrency(account.billing_country),
    included,
    included_used: used,
    included_remaining: included === null ? null : Math.max(0, included - used),
    overage_count: overage.length,
    overage_price: OVERAGE_PRICE,
    overage_amount: overage.reduce((sum, r) => sum + Number(r.price), 0),
    monthly_budget_cap: budgetCap,
    budget_used: budgetUsed / 100,
    budget_remaining: Math.max(0, budgetCapCents - budgetUsed) / 100,
    psd_exports: psdExportUsage(account.plan, exports),
  };
}

/** Exports this month: charged ones counted as used, reserved ones in progress (each holds its place). */
function psdExportUsage(plan: Plan, held: { overage: boolean; price: string | number; status: string }[]): PsdExportUsage {
  const included = psdExportsIncluded[plan];
  const charged = held.filter((e) => e.status === 'charged');
  const overage = charged.filter((e) => e.overage);
  return {
    entitled: psdExportEntitled[plan],
    included,
    included_used: charged.length - overage.length,
    included_remaining: included === null ? null : Math.max(0, included - held.filter((e) => !e.overage).length),
    in_progress: held.length - charged.length,
    overage_count: overage.length,
    overage_price: PSD_EXPORT_OVERAGE_PRICE,
    overage_amount: overage.reduce((sum, e) => sum + cents(Number(e.price)), 0) / 100,
  };
}
