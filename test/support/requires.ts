import { describe, it } from 'vitest';

/**
 * One way for a suite to depend on a real server or tool it cannot start itself (PostgreSQL,
 * Temporal, Mailpit, EventStoreDB, Chromium, c2pa-python). Without it the suite skips and says,
 * once per file, what is missing and which variable enables it. The line goes through the
 * console with SKIP_MARK; vitest.config.ts keeps it out of the per-file output and
 * test/support/skip-reporter.ts prints every such line in one block at the end of the run, with
 * the default reporter's output (docs/decisions/ D-046).
 */
export const SKIP_MARK = '[skip-reason]';

export interface Requirement {
  /** What the suites need, as a person names it: "a Temporal server", "Chromium". */
  server: string;
  /** The environment variable that enables them (none for a tool found on the PATH: then `how` says how to get it). */
  variable?: string;
  /** Whether it is there; by default, whether the variable is set to something. */
  available?: boolean;
  /** How to get one: a command, a package. */
  how?: string;
}

type Block = (name: string, body: () => void) => void;
type TestBlock = (name: string, options: { timeout?: number } | (() => unknown), body?: () => unknown) => void;

export interface Gate {
  available: boolean;
  /** `describe`, skipped when not available (its name then says why, for reporters other than the default one). */
  describe: Block;
  /** `it`, skipped likewise. */
  it: TestBlock;
}

/** Says why `what` is skipped (once per file and reason), unless the requirement is met. */
export function requires(requirement: Requirement, what: string): Gate {
  const available = requirement.available ?? Boolean(requirement.variable && process.env[requirement.variable]?.trim());
  if (available) return { available, describe: (name, body) => describe(name, body), it: (name, options, body) => (body ? it(name, options as { timeout?: number }, body) : it(name, options as () => unknown)) };
  reportSkip(what, requirement);
  const why = ` [skipped: no ${requirement.server}; ${enabling(requirement)}]`;
  return {
    available,
    describe: (name, body) => describe.skip(name + why, body),
    it: (name, options, body) => (body ? it.skip(name + why, options as { timeout?: number }, body) : it.skip(name + why, options as () => unknown)),
  };
}

const enabling = (requirement: Requirement) =>
  requirement.variable ? `set ${requirement.variable} to run it${requirement.how ? ` (${requirement.how})` : ''}` : `to run it: ${requirement.how}`;

const said = new Set<string>();

/** For suites that leave out a variant instead of skipping a block (e.g. the PostgreSQL variant of every database suite). */
export function reportSkip(what: string, requirement: Requirement): void {
  const line = `${SKIP_MARK} ${what}: no ${requirement.server}; ${enabling(requirement)}.`;
  if (said.has(line)) return;
  said.add(line);
  console.info(line);
}
