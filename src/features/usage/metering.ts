import type { CommandContext } from '../../core/decider.js';
import { runCommand } from '../../core/decider.js';
import type { AppDeps } from '../../core/deps.js';
import { findAccount } from '../accounts/queries.js';
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
