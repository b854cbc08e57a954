import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import { Router } from 'express';
import { z } from 'zod';
import { billingCurrency } from '../accounts/billing.js';
import { plans } from '../accounts/events.js';
import { includedPerMonth, monthOf, OVERAGE_PRICE } from './plans.js';
import type { ApiDeps } from '../../core/deps.js';
import { defineRoute } from '../../adapters/http/route.js';
import { assertAccountAccess } from '../accounts/routes.js';

const usageSchema = z
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

export function usageRoutes(deps: ApiDeps, registry: OpenAPIRegistry): Router {
  const router = Router();
  defineRoute(router, registry, deps, {
    method: 'get',
    path: '/v1/accounts/{account_id}/usage',
    tag: 'accounts',
    summary: "The account's metered usage for a calendar month (UTC); image-only and claimed verifications are free",
    auth: 'any',
    params: z.strictObject({ account_id: z.uuid() }),
    query: z.strictObject({ month: z.string().regex(/^\d{4}-(0[1-9]|1[0-2])$/, 'A month as YYYY-MM.').optional() }),
    responses: { 200: { description: 'Usage', schema: usageSchema }, 403: { description: 'Not your account' } },
    async handler({ params, query, principal }) {
      const accountId = params.account_id as string;
      assertAccountAccess(principal, accountId);
      const month = query.month ?? monthOf(deps.now());
      const account = await deps.knex('accounts').where({ id: accountId }).first();
      const rows = await deps.knex('usage_meterings').where({ account_id: accountId, month, released: false }).select('overage', 'price');
      const included = includedPerMonth[account.plan as keyof typeof includedPerMonth];
      const used = rows.filter((r) => !r.overage).length;
      const overage = rows.filter((r) => r.overage);
      return {
        status: 200,
        body: {
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
        },
      };
    },
  });
  return router;
}
