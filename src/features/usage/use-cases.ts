import type { AppDeps } from '../../core/module/deps.js';
import { extensionColumns, extensionsOf } from '../../core/module/extensions.js';
import { assertAccountAccess, type Principal } from '../../core/principal.js';
import type { Plan } from '../accounts/events.js';
import { billingCurrency, findAccount } from '../accounts/index.js';
import { includedPerMonth, monthOf, OVERAGE_PRICE, PSD_EXPORT_OVERAGE_PRICE, psdExportEntitled, psdExportsIncluded } from './plans.js';
import { chargedMeterings, heldPsdExports } from '../../../projections/usage/index.js';
import type { MonthlyUsage, PsdExportUsage } from './schemas.js';

export type { MonthlyUsage, PsdExportUsage } from './schemas.js';

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
    psd_export_stored_bytes: 0,
    // What other features add to the usage (core/module/extensions.ts): the PSD exports' disk.
    ...(await usageExtensionFields(deps, accountId)),
  };
}

async function usageExtensionFields(deps: AppDeps, accountId: string): Promise<Partial<MonthlyUsage>> {
  const columns = extensionColumns(deps.knex, extensionsOf(deps.extensions, 'account_usage'), 'a.id');
  if (Object.keys(columns).length === 0) return {};
  const selected = Object.entries(columns).map(([field, column]) => deps.knex.raw('(?) as ??', [column, field]));
  const row = await deps.knex.select(selected).from(deps.knex.raw('(select ?::uuid as id) as a', [accountId])).first();
  return Object.fromEntries(Object.entries(row ?? {}).map(([field, value]) => [field, typeof value === 'string' ? Number(value) : value]));
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
