/**
 * `npm run accounts:set-plan -- --account ID [--plan PLAN] [--budget-cap EUR|none]`: the operator's
 * way to record contract terms (Enterprise is never self-service). Appends the same
 * `AccountSettingsChanged` event an admin's PATCH does, with the `system` actor `operator`; the
 * service's projectors pick it up (at once on PostgreSQL, at the next start on the embedded
 * database, which must be stopped while this runs: PGlite has one owner).
 */
import crypto from 'node:crypto';
import { parseArgs } from 'node:util';
import { systemContext } from '../../core/es/commands.js';
import { runCommand } from '../../core/es/decider.js';
import type { OperatorCommand } from '../../core/module/operator-command.js';
import { accountDecider, accountStream, type AccountSettings } from './decider.js';
import { plans, type Plan } from './events.js';

const usage = 'Usage: npm run accounts:set-plan -- --account ID [--plan free|basic|professional|enterprise] [--budget-cap EUR|none]';

function parseSettings(argv: string[]): { accountId: string; changes: Partial<AccountSettings> } {
  const { values } = parseArgs({ args: argv, options: { account: { type: 'string' }, plan: { type: 'string' }, 'budget-cap': { type: 'string' } } });
  if (!values.account || !/^[0-9a-f-]{36}$/i.test(values.account)) throw new Error(`--account must be an account id.\n${usage}`);
  const changes: Partial<AccountSettings> = {};
  if (values.plan !== undefined) {
    if (!(plans as readonly string[]).includes(values.plan)) throw new Error(`--plan must be one of ${plans.join(', ')}.`);
    changes.plan = values.plan as Plan;
  }
  const cap = values['budget-cap'];
  if (cap !== undefined) {
    const eur = Number(cap);
    if (cap !== 'none' && !(Number.isFinite(eur) && eur >= 0 && eur <= 1_000_000)) throw new Error('--budget-cap must be an amount in EUR (0 to 1000000) or "none".');
    changes.monthly_budget_cap_eur = cap === 'none' ? null : eur;
  }
  if (!Object.keys(changes).length) throw new Error(`Nothing to change.\n${usage}`);
  return { accountId: values.account, changes };
}

export const setPlanCommand: OperatorCommand = {
  name: 'accounts:set-plan',
  parse(argv) {
    const request = parseSettings(argv);
    return async ({ config, store }) => {
      const context = systemContext(
        { config, now: () => new Date() },
        { actor: { type: 'system', id: 'operator' }, correlationId: `operator-${crypto.randomUUID()}`, accountId: request.accountId },
      );
      const outcome = await runCommand(store, accountStream(request.accountId), accountDecider, { type: 'ChangeSettings', by: 'operator', changes: request.changes, now: context.now }, context);
      return outcome.events.length ? `${JSON.stringify(outcome.events[0]!.data)}\n` : 'No change: the account already has these settings.\n';
    };
  },
};
