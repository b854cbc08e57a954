import { z } from 'zod';
import { route, type RouteSpec } from '../../core/http/route-spec.js';
import type { AppDeps } from '../../core/module/deps.js';
import { usageSchema } from './schemas.js';
import { getMonthlyUsage } from './use-cases.js';

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
