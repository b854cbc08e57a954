/**
 * What a definition's `run` gets from the in-process engine: the `WorkflowContext`
 * (workflows/definition.ts) of one run, and the cancellation scopes behind it. A scope says
 * what a workflow-code call is cancelled by; it follows the run's async calls (AsyncLocalStorage),
 * so `withDeadline` and `nonCancellable` reach the activities and timers inside them.
 * Durable sleeps record their wake times (runs-table.ts) before waiting, and a sleep beyond the
 * hold horizon suspends the run instead of holding it in memory.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { DeadlineExceeded, type ActivityOptions, type WorkflowContext } from '../../../../workflows/definition.js';
import type { WorkflowRegistration } from '../../../core/es/workflow.js';
import type { Clock } from '../clock.js';
import type { ActivityImplementation, ActivityRunner } from './activity-runner.js';
import type { RunRow, RunsTable } from './runs-table.js';
import type { Slots } from './slots.js';

/** Stops a run without an outcome: the engine is stopping, or the run is suspended in a long sleep. Its row stays `running`. */
export class RunInterrupted extends Error {
  override readonly name = 'RunInterrupted';
}

/** A run this process is executing. */
export interface ActiveRun {
  type: string;
  id: string;
  /** Waiting on a durable timer (counts as idle). */
  sleeping: boolean;
  holdsSlot: boolean;
  done: Promise<void>;
}

/** What a workflow-code call is cancelled by: `cancel` stops timers, waits and new attempts; `activity` is what running activities see. */
interface Scope {
  cancel: AbortSignal;
  activity: AbortSignal;
  /** False inside `nonCancellable`: the run is never suspended there. */
  cancellable: boolean;
}

const NEVER = new AbortController().signal;

export interface RunContextOptions {
  clock: Clock;
  /** Aborts when the engine stops: every run's outermost scope. */
  stopping: AbortSignal;
  /** A sleep ending further away than this suspends the run. */
  holdSleepsUpToMs: number;
  table: RunsTable;
  slots: Slots;
  activities: ActivityRunner;
  /** A run started or stopped sleeping (the engine's `idle()` looks again). */
  changed: () => void;
}

export class RunContexts {
  private readonly scopes = new AsyncLocalStorage<{ run: ActiveRun; scope: Scope }>();

  constructor(private readonly options: RunContextOptions) {}

  /** Runs the registration's definition for the row, in the run's outermost scope. */
  execute(registration: WorkflowRegistration, row: RunRow, run: ActiveRun): Promise<unknown> {
    const ctx = this.context(registration, row, run);
    return this.scopes.run({ run, scope: this.root() }, () => registration.definition.run(ctx, row.input));
  }

  private root(): Scope {
    return { cancel: this.options.stopping, activity: NEVER, cancellable: true };
  }

  private context(registration: WorkflowRegistration, row: RunRow, run: ActiveRun): WorkflowContext<Record<string, (...args: unknown[]) => Promise<unknown>>> {
    const { clock, table, activities: runner } = this.options;
    const activities: Record<string, (...args: unknown[]) => Promise<unknown>> = {};
    const implementations = registration.activities as Record<string, ActivityImplementation>;
    for (const [name, options] of Object.entries(registration.definition.activities as Record<string, ActivityOptions>)) {
      activities[name] = (...args) => runner.call(run, this.scope(run), name, options, implementations[name]!, args);
    }
    const timers = [...row.timers];
    let nextTimer = 0;
    return {
      type: row.type,
      id: row.id,
      activities,
      now: () => clock.now(),
      sleep: async (ms) => {
        const position = nextTimer++;
        let at = timers[position];
        if (at === undefined) {
          this.scope(run).cancel.throwIfAborted();
          at = clock.now().getTime() + ms;
          timers[position] = at;
          // Recorded before waiting: a restart resumes this sleep at the same wake time.
          await table.saveTimers(row, timers);
        }
        await this.sleepUntil(run, row, at);
      },
      sleepUntil: (at) => this.sleepUntil(run, row, at.getTime()),
      withDeadline: (at, work) => this.withDeadline(run, at.getTime(), work),
      nonCancellable: (work) => this.scopes.run({ run, scope: { cancel: NEVER, activity: NEVER, cancellable: false } }, work),
      isCancellation: (error) => error instanceof RunInterrupted,
    };
  }

  private scope(run: ActiveRun): Scope {
    const current = this.scopes.getStore();
    return current && current.run === run ? current.scope : this.root();
  }

  private async sleepUntil(run: ActiveRun, row: RunRow, atMs: number): Promise<void> {
    const { clock, slots } = this.options;
    const scope = this.scope(run);
    scope.cancel.throwIfAborted();
    if (atMs <= clock.now().getTime()) return;
    if (scope.cancellable && atMs - clock.now().getTime() > this.options.holdSleepsUpToMs) {
      await this.options.table.suspend(row, atMs);
      throw new RunInterrupted(`suspended until ${new Date(atMs).toISOString()}`);
    }
    // A sleeping run gives its execution slot to another until it wakes.
    run.sleeping = true;
    if (run.holdsSlot) slots.release();
    run.holdsSlot = false;
    this.options.changed();
    try {
      await clock.waitUntil(atMs, scope.cancel);
    } finally {
      run.sleeping = false;
    }
    await slots.acquire(scope.cancel);
    run.holdsSlot = true;
  }

  private async withDeadline<T>(run: ActiveRun, atMs: number, work: () => Promise<T>): Promise<T> {
    const { clock } = this.options;
    const parent = this.scope(run);
    parent.cancel.throwIfAborted();
    if (atMs <= clock.now().getTime()) throw new DeadlineExceeded('deadline passed before the work started');
    const deadline = new AbortController();
    const timer = new AbortController();
    clock
      .waitUntil(atMs, AbortSignal.any([timer.signal, parent.cancel]))
      .then(() => deadline.abort(new DeadlineExceeded('deadline passed')))
      .catch(() => undefined); // the work finished first, or the engine is stopping
    const child: Scope = { cancel: AbortSignal.any([parent.cancel, deadline.signal]), activity: AbortSignal.any([parent.activity, deadline.signal]), cancellable: parent.cancellable };
    const expired = new Promise<never>((_, reject) => deadline.signal.addEventListener('abort', () => reject(deadline.signal.reason), { once: true }));
    const running = this.scopes.run({ run, scope: child }, work);
    expired.catch(() => undefined);
    running.catch(() => undefined); // after the deadline the work's own rejection is not news
    try {
      return await Promise.race([running, expired]);
    } catch (error) {
      if (deadline.signal.aborted) throw deadline.signal.reason;
      throw error;
    } finally {
      timer.abort();
    }
  }
}
