import { z } from 'zod';
import type { AppDeps } from '../../core/module/deps.js';
import { callerOf } from '../../core/principal.js';
import { tool, type ToolSpec } from '../../core/http/tool-spec.js';
import { plans, type Plan } from '../accounts/events.js';
import { usageQuery } from './routes.js';
import { usageSchema, type PsdExportUsage } from './schemas.js';
import { getMonthlyUsage } from './use-cases.js';
import { includedPerMonth, monthlyPrice, psdExportsIncluded } from './plans.js';

const upgradeSchema = z.object({
  current_plan: z.enum(plans),
  currency: z.enum(['EUR', 'USD']),
  plans: z.array(
    z.object({
      plan: z.enum(plans),
      monthly_price: z.number().nullable().describe('null: priced by volume (Enterprise).'),
      included_verifications: z.number().int().nullable().describe('RAW+image pairs per month; image-only checks are free. null: by contract.'),
      psd_exports_included: z.number().int().nullable().describe('Layered PSD exports per month (Professional and Enterprise only). null: by contract.'),
    }),
  ),
  suggested_plan: z.enum(plans).nullable().describe('The next plan up from the current one; null on Enterprise.'),
  upgrade_url: z.string().nullable().describe('Where to change the plan; null when this deployment has no self-service page.'),
  how_to_upgrade: z.string(),
});

/** The exports' sentence of the usage summary (none below Professional, where there are none). */
function psdExportWords(exports: PsdExportUsage, currency: string): string {
  if (!exports.entitled) return '';
  const included = exports.included === null ? `${exports.included_used} made (by contract)` : `${exports.included_used} of ${exports.included} included made`;
  const progress = exports.in_progress ? `, ${exports.in_progress} in progress` : '';
  const overage = exports.overage_count ? `, ${exports.overage_count} over the plan (${exports.overage_amount.toFixed(2)} ${currency})` : '';
  return ` PSD exports: ${included}${progress}${overage}.`;
}

/** Agent tools over the usage use cases: the month's usage, and where to get more. */
export function usageTools(deps: AppDeps): ToolSpec[] {
  return [
    tool({
      name: 'get_account_usage',
      title: 'Get account usage',
      description:
        "Your account's plan and this month's (or a given month's, YYYY-MM, UTC) metered usage: included verifications used and remaining, overage count and amount, budget cap and how much of it is used; layered PSD exports included, used, in progress and over the plan. Only RAW+image pairs count; image-only checks are free.",
      access: 'key',
      readOnly: true,
      input: usageQuery,
      output: usageSchema,
      handler: async (call, input) => {
        const principal = callerOf(call);
        const usage = await getMonthlyUsage(deps, principal, principal.accountId, input.month);
        const limit = usage.included === null ? 'by contract' : `${usage.included_used} of ${usage.included} included used, ${usage.included_remaining} remaining`;
        const overage = usage.overage_count ? `; ${usage.overage_count} over the plan (${usage.overage_amount.toFixed(2)} ${usage.currency})` : '';
        return { output: usage, summary: `Plan ${usage.plan}, ${usage.month}: ${limit}${overage}.${psdExportWords(usage.psd_exports, usage.currency)}` };
      },
    }),
    tool({
      name: 'get_upgrade_link',
      title: 'Get an upgrade link',
      description: 'The plans with their prices and allowances, the next plan up from yours, and the link where the account changes its plan.',
      access: 'key',
      readOnly: true,
      input: z.strictObject({ plan: z.enum(plans).optional().describe('The plan wanted; default: the next one up.') }),
      output: upgradeSchema,
      handler: async (call, input) => {
        const principal = callerOf(call);
        const usage = await getMonthlyUsage(deps, principal, principal.accountId);
        const next: Plan | null = plans[plans.indexOf(usage.plan) + 1] ?? null;
        const wanted = input.plan ?? next;
        const url = deps.config.UPGRADE_URL ? new URL(deps.config.UPGRADE_URL) : null;
        if (url) {
          url.searchParams.set('account_id', principal.accountId);
          if (wanted) url.searchParams.set('plan', wanted);
        }
        const how = url
          ? `Open ${url.toString()} (signed in as an admin of the account) to change the plan.`
          : 'This deployment has no self-service upgrade page: ask the service operator to change the plan (npm run accounts:set-plan).';
        return {
          output: {
            current_plan: usage.plan,
            currency: usage.currency,
            plans: plans.map((plan) => ({ plan, monthly_price: monthlyPrice[plan], included_verifications: includedPerMonth[plan], psd_exports_included: psdExportsIncluded[plan] })),
            suggested_plan: next,
            upgrade_url: url?.toString() ?? null,
            how_to_upgrade: how,
          },
          summary: `Current plan: ${usage.plan}.${wanted ? ` Upgrade to ${wanted}.` : ''} ${how}`,
        };
      },
    }),
  ];
}
