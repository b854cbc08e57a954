/**
 * `node dist/src/cli/operator.js <command> [arguments]` (behind `npm run <command>`): runs an
 * operator command a module declares (core/module/operator-command.ts) against the configured stores.
 * Arguments are checked before any database is opened; the embedded database has one owner,
 * so the service must be stopped while a command runs on it.
 */
import { pino } from 'pino';
import { AppError } from '../core/errors.js';
import { loadConfig } from '../core/config.js';
import { modules } from '../modules.js';
import { openStores } from '../service.js';

async function main(): Promise<number> {
  const [name, ...argv] = process.argv.slice(2);
  const commands = modules.flatMap((m) => m.commands ?? []);
  const command = commands.find((c) => c.name === name);
  if (!command) {
    process.stderr.write(`Unknown operator command "${name ?? ''}". Commands: ${commands.map((c) => c.name).join(', ')}.\n`);
    return 2;
  }
  let run;
  try {
    run = command.parse(argv);
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n`);
    return 2;
  }
  const config = loadConfig();
  const log = pino({ level: process.env.LOG_LEVEL ?? 'warn' });
  const { db, store } = await openStores(config, log);
  try {
    process.stdout.write(await run({ config, store, log }));
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
