import type { AppDeps } from '../../core/deps.js';
import { assertAccountAccess, type Principal } from '../../core/principal.js';
import type { Plan } from '../accounts/events.js';
import { billingCurrency, findAccount } from '../accounts/index.js';
import { includedPerMonth, monthOf, OVERAGE_PRICE } from './plans.js';
import { chargedMeterings } from './queries.js';

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
}

/** The account's metered usage for a calendar month (UTC; default: the current one). */
export async function getMonthlyUsage(deps: AppDeps, principal: Principal, accountId: string, month: string = monthOf(deps.now())): Promise<MonthlyUsage> {
  assertAccountAccess(principal, accountId);
  const account = await findAccount(deps.knex, accountId);
  if (!account) throw new Error(`account ${accountId} is missing from the read model`);
  const rows = await chargedMeterings(deps.knex, accountId, month);
  const included = includedPerMonth[account.plan];
  const used = rows.filter((r) => !r.overage).length;
  const overage = rows.filter((r) => r.overage);
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
    monthly_budget_cap: account.monthly_budget_cap_eur === null ? null : Number(account.monthly_budget_cap_eur),
  };
}
