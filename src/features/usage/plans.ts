import type { Plan } from '../accounts/events.js';

/** Raw-pair verifications included per calendar month (spec 1 and 8). Enterprise: by contract. */
export const includedPerMonth: Record<Plan, number | null> = { free: 5, basic: 25, professional: 500, enterprise: null };

/** Price of each verification beyond the included ones (paid plans only), in the billing currency. */
export const OVERAGE_PRICE = 0.25;

/** Calendar month in UTC, e.g. '2026-11'. */
export const monthOf = (date: Date): string => date.toISOString().slice(0, 7);

/** Monthly price of each plan in the billing currency (spec 1; same numbers in EUR and USD). Enterprise: by volume, with an SLA. */
export const monthlyPrice: Record<Plan, number | null> = { free: 0, basic: 3.95, professional: 49.95, enterprise: null };

/** Layered PSD exports included per month (spec 1 and 8): Professional only. */
export const psdExportsIncluded: Record<Plan, number> = { free: 0, basic: 0, professional: 50, enterprise: 0 };
