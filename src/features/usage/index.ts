/**
 * The usage feature's public entry: what other features use (a feature reaches another
 * only through its index.ts or its events.ts). Each line is used by another feature.
 */
export { meterVerification, notBilled, refundMetering, releaseMetering, type Billing } from './metering.js';
export { monthOf } from './plans.js';
/**
 * PSD exports (psd-export feature; spec 4.1, 8; D-120 and D-123 in docs/decisions/):
 * - `assertPsdExportAllowed(deps, ctx, { accountId, verificationId, exportId, regeneration? })` when
 *   an export is requested, before anything is recorded: throws AppError NOT_ENTITLED (403) below
 *   Professional, AppError BUDGET_EXCEEDED (402) when one more export at 0.50 beyond the 50 included
 *   would pass the month's budget cap (shared with verifications' overage); else reserves the
 *   export's place in the month of `ctx.now` (exact under concurrency, idempotent per exportId).
 *   `regeneration: true` (a failed or expired export made again): the plan is checked, nothing is
 *   reserved, never 402: regeneration is free and uses none of the 50.
 * - `meterPsdExport(deps, ctx, { accountId, exportId, requestedAt })` when it completes: the
 *   reservation becomes the charge (metered on completion). `releasePsdExport(...)` when it
 *   fails: the reservation is given back, never charged. Both are idempotent and do nothing for an
 *   export with no reservation (a regeneration), so callers call them on every completion and
 *   failure. `requestedAt` is the `ctx.now` the export was reserved with: its month holds it.
 */
export { assertPsdExportAllowed, meterPsdExport, releasePsdExport, type PsdExportCharge, type PsdExportRequest } from './psd-export-metering.js';
/** Reservations not ended, for psd-export's release of those a crash left without their export (src/features/psd-export/cleanup-activities.ts). */
export { reservedPsdExportsBefore } from '../../../projections/usage/index.js';
export { getMonthlyUsage } from './use-cases.js';
/** What getMonthlyUsage answers (the web app's usage page shows it). */
export type { MonthlyUsage } from './schemas.js';
export { includedPerMonth, monthlyPrice } from './plans.js';
export { usageErrors } from './errors.js';
