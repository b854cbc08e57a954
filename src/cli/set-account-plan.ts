/**
 * `npm run accounts:set-plan -- --account ID [--plan PLAN] [--budget-cap EUR|none]`: the operator's
 * way to record contract terms (Enterprise is never self-service). Appends the same
 * `AccountSettingsChanged` event an admin's PATCH does, with the `system` actor `operator`; the
 * service's projectors pick it up (at once on PostgreSQL, at the next start on the embedded
 * database, which must be stopped while this runs: PGlite has one owner).
 */
import crypto from 'node:crypto';
import { parseArgs } from 'node:util';
import { pino } from 'pino';
import { accountDecider, accountStream, type AccountSettings } from '../features/accounts/decider.js';
import { plans, type Plan } from '../features/accounts/events.js';
import { systemContext } from '../core/commands.js';
import { runCommand } from '../core/decider.js';
import { AppError } from '../core/errors.js';
import { loadConfig } from '../core/config.js';
import { openStores } from '../service.js';

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

async function main(): Promise<number> {
  let request;
  try {
    request = parseSettings(process.argv.slice(2));
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n`);
    return 2;
  }
  const config = loadConfig();
  const log = pino({ level: process.env.LOG_LEVEL ?? 'warn' });
  const { db, store } = await openStores(config, log);
  try {
    const context = systemContext(
      { config, now: () => new Date() },
      { actor: { type: 'system', id: 'operator' }, correlationId: `operator-${crypto.randomUUID()}`, accountId: request.accountId },
    );
    const outcome = await runCommand(store, accountStream(request.accountId), accountDecider, { type: 'ChangeSettings', by: 'operator', changes: request.changes, now: context.now }, context);
    process.stdout.write(outcome.events.length ? `${JSON.stringify(outcome.events[0]!.data)}\n` : 'No change: the account already has these settings.\n');
    return 0;
  } catch (error) {
    if (error instanceof AppError) {
      process.stderr.write(`${error.message}\n`);
      return 1;
    }
    throw error;
  } finally {
    await store.close();
    await db.close();
  }
}

process.exitCode = await main();
