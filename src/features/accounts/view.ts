import { z } from 'zod';
import { isoDate } from '../../core/http/schemas.js';
import { billingCurrency } from './billing.js';
import { plans, userRoles } from './events.js';
import type { AccountRow, UserRow } from '../../../projections/accounts/index.js';

/** The API's shape of an account and a user, and the mapping from their read-model rows. */
export const accountSchema = z
  .object({
    id: z.uuid(),
    name: z.string(),
    plan: z.enum(plans),
    billing_country: z.string(),
    billing_currency: z.enum(['EUR', 'USD']),
    monthly_budget_cap_eur: z.number().nullable(),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .openapi('Account');

export const userSchema = z
  .object({
    id: z.uuid(),
    account_id: z.uuid(),
    email: z.string(),
    name: z.string(),
    role: z.enum(userRoles),
    status: z.enum(['active', 'invited']).describe('`invited`: the e-mailed invitation is not accepted yet; the user cannot log in.'),
    created_at: z.string(),
  })
  .openapi('User');

export type AccountView = z.infer<typeof accountSchema>;
export type UserView = z.infer<typeof userSchema>;

export function toAccount(row: AccountRow): AccountView {
  return {
    id: row.id,
    name: row.name,
    plan: row.plan,
    billing_country: row.billing_country,
    billing_currency: billingCurrency(row.billing_country),
    monthly_budget_cap_eur: row.monthly_budget_cap_eur === null ? null : Number(row.monthly_budget_cap_eur),
    created_at: isoDate(row.created_at)!,
    updated_at: isoDate(row.updated_at)!,
  };
}

export const toUser = (row: UserRow): UserView => ({
  id: row.id,
  account_id: row.account_id,
  email: row.email,
  name: row.name,
  role: row.role,
  status: row.password_hash === null ? 'invited' : 'active',
  created_at: isoDate(row.created_at)!,
});
