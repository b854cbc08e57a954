import path from 'node:path';
import type { Reporter, TestRunEndReason, Vitest } from 'vitest/node';
import { SKIP_MARK } from './requires.js';

type ConsoleLog = Parameters<NonNullable<Reporter['onUserConsoleLog']>>[0];

/**
 * Added to the default reporter (vitest.config.ts): collects the skip reasons suites report
 * through test/support/requires.ts and prints them in one block before the summary, one line per
 * reason with the files it skipped, so a plain `npm test` says what did not run and why.
 */
export default class SkipReasonsReporter implements Reporter {
  private vitest!: Vitest;
  private readonly reasons = new Map<string, Set<string>>();

  onInit(vitest: Vitest): void {
    this.vitest = vitest;
  }

  onTestRunStart(): void {
    this.reasons.clear();
  }

  onUserConsoleLog(log: ConsoleLog): void {
    if (!log.content.startsWith(SKIP_MARK)) return;
    const reason = log.content.slice(SKIP_MARK.length).trim();
    const task = log.taskId ? this.vitest.state.idMap.get(log.taskId) : undefined;
    const file = task?.file?.filepath ? path.relative(this.vitest.config.root, task.file.filepath) : 'unknown file';
    let files = this.reasons.get(reason);
    if (!files) this.reasons.set(reason, (files = new Set()));
    files.add(file);
  }

  onTestRunEnd(_modules: unknown, _errors: unknown, _reason: TestRunEndReason): void {
    if (this.reasons.size === 0) return;
    const lines = ['', `Skipped, and why (${this.reasons.size}):`];
    for (const [reason, files] of [...this.reasons].sort(([a], [b]) => a.localeCompare(b))) {
      const list = [...files].sort();
      const where = list.length > 3 ? `${list.slice(0, 2).join(', ')} and ${list.length - 2} more files` : list.join(', ');
      lines.push(`  ↓ ${reason} [${where}]`);
    }
    this.vitest.logger.log(lines.join('\n'));
  }
}
