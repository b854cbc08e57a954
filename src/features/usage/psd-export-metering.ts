import type { CommandContext } from '../../core/es/decider.js';
import { runCommand } from '../../core/es/decider.js';
import type { AppDeps } from '../../core/module/deps.js';
import { findAccount } from '../accounts/index.js';
import { assertPsdExportEntitled, usageDecider, usageStream } from './decider.js';
import { monthOf } from './plans.js';

type ReserveDeps = Pick<AppDeps, 'knex' | 'store' | 'streamLocks'>;
type ChargeDeps = Pick<AppDeps, 'store' | 'streamLocks'>;

export interface PsdExportRequest {
  accountId: string;
  verificationId: string;
  /** The export's id: the reservation's key, so a retried request reserves once. */
  exportId: string;
  /** Re-generation of a failed or expired export (spec 3.2, 8): free; only the plan is checked. */
  regeneration?: boolean;
}

/** Which reservation to charge or release (the reservation names its verification). */
export interface PsdExportCharge {
  accountId: string;
  exportId: string;
  /** `ctx.now` of the assertPsdExportAllowed call that reserved the export: its UTC month holds the reservation. */
  requestedAt: Date;
}

/**
 * Whether the account may export a PSD now, and its place in the month if so (spec 4.1, 8).
 * - Free and Basic (and an account with no row): 403 NOT_ENTITLED, thrown as AppError.
 * - Professional: one of the 50 included this month, else one at 0.50 inside the monthly budget
 *   cap, which covers all the month's overage (verifications' and exports', charged or reserved);
 *   past it 402 BUDGET_EXCEEDED, thrown as AppError. Enterprise: by contract, never overage.
 * - The place is a reservation (PsdExportReserved) in the account's month usage stream, appended at
 *   the stream's revision: concurrent requests at the edge, in any process, pass exactly as many
 *   as the cap allows. It is charged by meterPsdExport (completion) or given back by
 *   releasePsdExport (failure). Idempotent per exportId.
 * - `regeneration`: only the plan is checked; nothing is reserved, never 402.
 * Store conflicts past its retries: WrongExpectedRevisionError (503), as every command.
 */
export async function assertPsdExportAllowed(deps: ReserveDeps, ctx: CommandContext, request: PsdExportRequest): Promise<void> {
  const account = await findAccount(deps.knex, request.accountId);
  const plan = account?.plan ?? 'free';
  if (request.regeneration) return assertPsdExportEntitled(plan);
  const month = monthOf(ctx.now);
  const stream = usageStream(request.accountId, month);
  // The month's stream is contended: this process's writers take turns (as verifications' metering).
  await deps.streamLocks.run(stream, () =>
    runCommand(deps.store, stream, usageDecider, {
      type: 'ReservePsdExport',
      account_id: request.accountId,
      month,
      verification_id: request.verificationId,
      export_id: request.exportId,
      plan,
      budget_cap: account?.monthly_budget_cap_eur == null ? null : Number(account.monthly_budget_cap_eur),
      now: ctx.now,
    }, ctx),
  );
}

/**
 * The export completed: its reservation becomes a charge (spec 8: metered on completion), in
 * the month it was reserved in. Idempotent per exportId: charged already, released, or never
 * reserved (a regeneration) appends nothing, so a retried or resumed completion charges once.
 */
export async function meterPsdExport(deps: ChargeDeps, ctx: CommandContext, charge: PsdExportCharge): Promise<void> {
  const stream = usageStream(charge.accountId, monthOf(charge.requestedAt));
  await deps.streamLocks.run(stream, () => runCommand(deps.store, stream, usageDecider, { type: 'MeterPsdExport', export_id: charge.exportId, now: ctx.now }, ctx));
}

/**
 * The export failed: its reservation is given back and never charged (its included place or its
 * budget is free again). Idempotent; a charged export stays charged; never reserved: nothing.
 */
export async function releasePsdExport(deps: ChargeDeps, ctx: CommandContext, charge: PsdExportCharge): Promise<void> {
  const stream = usageStream(charge.accountId, monthOf(charge.requestedAt));
  await deps.streamLocks.run(stream, () => runCommand(deps.store, stream, usageDecider, { type: 'ReleasePsdExport', export_id: charge.exportId, now: ctx.now }, ctx));
}
