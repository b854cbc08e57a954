import type { CommandContext } from '../../core/es/decider.js';
import { runCommand } from '../../core/es/decider.js';
import type { AppDeps } from '../../core/module/deps.js';
import type { EventStore } from '../../core/es/event-store.js';
import { findAccount } from '../accounts/index.js';
import { usageDecider, usageStream } from './decider.js';
import { monthOf } from './plans.js';

export interface Billing {
  counted: boolean;
  overage: boolean;
  price_eur: number;
}

export const notBilled: Billing = { counted: false, overage: false, price_eur: 0 };

/**
 * Reserves one raw-pair verification in the account's month; 402 QUOTA_EXCEEDED past plan and
 * budget. This process's writers of one month's stream are serialised (it is contended).
 */
export async function meterVerification(deps: AppDeps, accountId: string, verificationId: string, context: CommandContext): Promise<Billing> {
  // An anonymous user has no account row: it gets the Free plan's quota.
  const account = (await findAccount(deps.knex, accountId)) ?? { plan: 'free' as const, monthly_budget_cap_eur: null };
  const month = monthOf(context.now);
  const stream = usageStream(accountId, month);
  const outcome = await deps.streamLocks.run(stream, () =>
    runCommand(deps.store, stream, usageDecider, {
      type: 'Meter',
      account_id: accountId,
      month,
      verification_id: verificationId,
      plan: account.plan,
      budget_cap: account.monthly_budget_cap_eur === null ? null : Number(account.monthly_budget_cap_eur),
      now: context.now,
    }, context),
  );
  const metered = outcome.events[0];
  return { counted: true, overage: metered?.type === 'VerificationMetered' && metered.data.overage, price_eur: metered?.type === 'VerificationMetered' ? metered.data.price : 0 };
}

/** Gives a reservation back (the verification it was for was never recorded). */
export async function releaseMetering(deps: AppDeps, accountId: string, verificationId: string, context: CommandContext): Promise<void> {
  const stream = usageStream(accountId, monthOf(context.now));
  await deps.streamLocks.run(stream, () => runCommand(deps.store, stream, usageDecider, { type: 'Release', verification_id: verificationId, now: deps.now() }, context));
}

/**
 * Releases a queued verification's metering because it failed by the service's fault (a stalled
 * decoder, the deadline, an outage), not by its files: such a failure is not metered (DESIGN.md
 * robustness rules; D-094). `month` is the month it was metered in (its
 * queueing). Idempotent: nothing metered, or released already, appends nothing. Re-decides on
 * a version conflict (runCommand), so it needs no lock of this process's.
 */
export async function refundMetering(store: EventStore, input: { accountId: string; verificationId: string; month: string }, context: CommandContext): Promise<boolean> {
  const outcome = await runCommand(store, usageStream(input.accountId, input.month), usageDecider, { type: 'Release', verification_id: input.verificationId, now: context.now }, context);
  return outcome.events.length > 0;
}
