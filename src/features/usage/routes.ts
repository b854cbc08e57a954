import { z } from 'zod';
import { route, type RouteSpec } from '../../core/route-spec.js';
import type { AppDeps } from '../../core/deps.js';
import { plans } from '../accounts/events.js';
import { getMonthlyUsage } from './use-cases.js';

export const usageSchema = z
  .object({
    account_id: z.uuid(),
    month: z.string(),
    plan: z.enum(plans),
    currency: z.enum(['EUR', 'USD']),
    included: z.number().int().nullable().describe('Raw-pair verifications included per month; null = by contract (Enterprise).'),
    included_used: z.number().int(),
    included_remaining: z.number().int().nullable(),
    overage_count: z.number().int(),
    overage_price: z.number(),
    overage_amount: z.number(),
    monthly_budget_cap: z.number().nullable(),
    budget_used: z.number().describe("The month's overage the budget cap covers: verifications' overage_amount plus PSD exports' overage, charged or in progress."),
    budget_remaining: z.number().describe('What the cap leaves for more overage; 0 without a cap (no overage), and always on the Free plan.'),
    psd_exports: z
      .object({
        entitled: z.boolean().describe('Layered PSD exports: Professional and Enterprise only.'),
        included: z.number().int().nullable().describe('Exports included per month; null = by contract (Enterprise).'),
        included_used: z.number().int().describe('Included exports completed this month.'),
        included_remaining: z.number().int().nullable().describe('Included exports left this month (those in progress hold theirs).'),
        in_progress: z.number().int().describe('Exports requested and not ended: charged when they complete, never when they fail.'),
        overage_count: z.number().int(),
        overage_price: z.number(),
        overage_amount: z.number(),
      })
      .describe("This month's layered PSD exports: metered on completion; a failed export and a regeneration are free."),
  })
  .openapi('Usage');

export const usageQuery = z.strictObject({ month: z.string().regex(/^\d{4}-(0[1-9]|1[0-2])$/, 'A month as YYYY-MM.').optional() });

export function usageRoutes(deps: AppDeps): RouteSpec[] {
  return [
    route({
      method: 'get',
      path: '/v1/accounts/{account_id}/usage',
      tag: 'accounts',
      summary: "The account's metered usage for a calendar month (UTC); image-only and claimed verifications are free",
      auth: 'any',
      params: z.strictObject({ account_id: z.uuid() }),
      query: usageQuery,
      responses: { 200: { description: 'Usage', schema: usageSchema }, 403: { description: 'Not your account' } },
      handler: async ({ params, query, principal }) => ({ status: 200, body: await getMonthlyUsage(deps, principal, params.account_id, query.month) }),
    }),
  ];
}
