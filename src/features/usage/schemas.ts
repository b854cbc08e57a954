import { z } from 'zod';
import '../../core/http/schemas.js'; // zod's .openapi() extension, before the schema is built
import { plans } from '../accounts/events.js';

/**
 * The account's usage for a month as the API, the agent tools and the web app's usage page show
 * it: the one statement of its fields, from which MonthlyUsage (what getMonthlyUsage answers) is
 * derived, so a field added here is one the use case must fill and every reader sees.
 */
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
    psd_export_stored_bytes: z
      .number()
      .int()
      .describe("Bytes of the account's PSD export files kept now, whatever month made them: each is deleted 30 days after it was made, or when its verification is deleted."),
  })
  .openapi('Usage');

export type MonthlyUsage = z.infer<typeof usageSchema>;
export type PsdExportUsage = MonthlyUsage['psd_exports'];
