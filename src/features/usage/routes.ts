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
