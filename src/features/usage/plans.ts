import type { Plan } from '../accounts/events.js';

/** Raw-pair verifications included per calendar month (spec 1 and 8). Enterprise: by contract. */
export const includedPerMonth: Record<Plan, number | null> = { free: 5, basic: 25, professional: 500, enterprise: null };

/** Price of each verification beyond the included ones (paid plans only), in the billing currency. */
export const OVERAGE_PRICE = 0.25;

/** Calendar month in UTC, e.g. '2026-11'. */
export const monthOf = (date: Date): string => date.toISOString().slice(0, 7);

/** Monthly price of each plan in the billing currency (spec 1; same numbers in EUR and USD). Enterprise: by volume, with an SLA. */
export const monthlyPrice: Record<Plan, number | null> = { free: 0, basic: 3.95, professional: 49.95, enterprise: null };

/** Plans that may export a layered PSD (spec 4.1: Professional and Enterprise only; below: 403 NOT_ENTITLED). */
export const psdExportEntitled: Record<Plan, boolean> = { free: false, basic: false, professional: true, enterprise: true };

/**
 * Layered PSD exports included per month (spec 1 and 8): 50 on Professional; Enterprise by
 * contract (null: no limit in the service, as its verifications, D-016); none below, which are
 * not entitled at all.
 */
export const psdExportsIncluded: Record<Plan, number | null> = { free: 0, basic: 0, professional: 50, enterprise: null };

/** Price of each PSD export beyond the included ones (spec 8), in the billing currency; inside the same monthly budget cap as verification overage. */
export const PSD_EXPORT_OVERAGE_PRICE = 0.5;
