import type { Plan } from '../accounts/events.js';

/** Raw-pair verifications included per calendar month (spec 1 and 8). Enterprise: by contract. */
export const includedPerMonth: Record<Plan, number | null> = { free: 5, basic: 25, professional: 500, enterprise: null };

/** Price of each verification beyond the included ones (paid plans only), in the billing currency. */
export const OVERAGE_PRICE = 0.25;

/** Calendar month in UTC, e.g. '2026-11'. */
export const monthOf = (date: Date): string => date.toISOString().slice(0, 7);
