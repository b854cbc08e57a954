import type { Logger } from 'pino';
import type { Config } from '../config.js';
import type { EventStore } from '../es/event-store.js';

/** What an operator command runs against: the configured stores, opened and migrated by the runner. */
export interface OperatorContext {
  config: Config;
  store: EventStore;
  log: Logger;
}

/**
 * A command an operator runs beside the service (`npm run <name> -- <arguments>`), declared by
 * the feature it acts on and run by src/cli/operator.ts, which opens the stores only for
 * arguments that parse.
 */
export interface OperatorCommand {
  /** The npm script's name, e.g. "accounts:set-plan". */
  name: string;
  /**
   * Reads the arguments: the work to run, or throws an Error whose message is the usage problem
   * (exit status 2, no database opened). The work returns what to print; an AppError it throws
   * is printed as the refusal (exit status 1).
   */
  parse(argv: string[]): (context: OperatorContext) => Promise<string>;
}
