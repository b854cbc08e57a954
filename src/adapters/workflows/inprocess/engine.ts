/**
 * The in-process workflow engine: the `WorkflowEngine` port (src/core/es/workflow.ts) served inside
 * the server process, for deployments without Temporal. This module is its lifecycle (open,
 * start, stop, idle), the periodic sweep, and which runs execute when; the run's durable row
 * (runs-table.ts), the context its definition runs with (run-context.ts), activity calls
 * (activity-runner.ts), execution slots (slots.ts) and crash failpoints (failpoints.ts) are
 * each their own module.
 */
import { setMaxListeners } from 'node:events';
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import { checkRegistrations, type EngineHealth, type WorkflowEngine, type WorkflowRegistration } from '../../../core/es/workflow.js';
import { systemClock, type Clock } from '../clock.js';
import { ActivityRunner } from './activity-runner.js';
import { failpoints } from './failpoints.js';
import { RunContexts, RunInterrupted, type ActiveRun } from './run-context.js';
import { RunsTable, type RunRow } from './runs-table.js';
import { Slots } from './slots.js';

export interface InProcessEngineOptions {
  /** Runs executing at the same time (a run waiting on a durable timer does not count). */
  concurrency?: number;
  clock?: Clock;
  /** Unfinished runs and the definitions' sweeps are looked at this often. */
  sweepMs?: number;
  /**
   * A durable sleep ending further away than this is not held in memory: the run is suspended
   * (its wake time recorded) and the sweep resumes it shortly before it wakes.
   */
  holdSleepsUpToMs?: number;
  /**
   * A failpoint for crash tests (`CRASH_AT`): `<type>.<activity>:before|after`. The first time a
   * run reaches it, the process kills itself with SIGKILL: no drain, no cleanup, as a power cut.
   */
  crashAt?: string;
}

/**
 * Runs workflow definitions (workflows/definition.ts, registered as src/core/es/workflow.ts says) inside the server process, with the
 * semantics Temporal gives them:
 * - every activity call is retried per its policy (a non-retryable type fails at once) and
 *   bounded by its start-to-close timeout (the attempt's signal aborts, the attempt is retried);
 * - `withDeadline` aborts the signal its activities received and stops the work where it is;
 * - durable: each started run (type, id, input, status, its sleeps' wake times) is a row of
 *   `workflow_runs` in the service database. `open()` and a periodic sweep resume every row
 *   still `running`; a resumed run re-executes its definition from the top, which is safe
 *   because every activity is idempotent, and its sleeps keep their recorded wake times;
 * - the definitions' own sweeps (ids the domain says are unfinished) are started on the same
 *   schedule, covering a crash between a domain append and `start`.
 * One engine per database: two engines on one database would both resume the same rows, so the
 * service runs it only in the process holding the engine lock (src/service.ts, issue 26); API
 * processes record runs with InProcessRunRecorder and wake this one (`resumeRecorded`).
 */
export class InProcessWorkflowEngine implements WorkflowEngine {
  readonly kind = 'inprocess' as const;
  private readonly types: Map<string, WorkflowRegistration>;
  private readonly runs = new Map<string, ActiveRun>();
  private readonly stopping = new AbortController();
  private readonly slots: Slots;
  private readonly table: RunsTable;
  private readonly contexts: RunContexts;
  private readonly clock: Clock;
  private readonly sweepMs: number;
  private readonly holdSleepsUpToMs: number;
  private readonly changeWaiters: (() => void)[] = [];
  private sweepTimer?: NodeJS.Timeout;
  /**
   * A read of the due rows describes each run as it was when the read began: a run that left
   * memory meanwhile (it suspended until a later wake, or ended) must not be executed again from
   * that row. Each read takes a tick; a run leaving memory records the tick it left at
   * (`leftAt`); a row from a read that began before is skipped, and the next read sees it as it is.
   */
  private tick = 0;
  private readonly leftAt = new Map<string, number>();
  private readonly reading = new Set<number>();
  private stopped = false;
  private haltedBy?: Error;

  constructor(
    registrations: readonly WorkflowRegistration[],
    private readonly knex: Knex,
    private readonly log: Logger,
    options: InProcessEngineOptions = {},
  ) {
    checkRegistrations(registrations);
    // Every waiting run and timer listens to the engine's stop signal (50 queued uploads: 50
    // listeners, each removed when it settles): many listeners are expected, not a leak.
    setMaxListeners(0, this.stopping.signal);
    this.types = new Map(registrations.map((registration) => [registration.definition.type, registration]));
    this.slots = new Slots(options.concurrency ?? 2);
    this.clock = options.clock ?? systemClock;
    this.sweepMs = options.sweepMs ?? 30_000;
    this.holdSleepsUpToMs = options.holdSleepsUpToMs ?? 2 * this.sweepMs;
    this.table = new RunsTable(knex);
    this.contexts = new RunContexts({
      clock: this.clock,
      stopping: this.stopping.signal,
      holdSleepsUpToMs: this.holdSleepsUpToMs,
      table: this.table,
      slots: this.slots,
      activities: new ActivityRunner(this.clock, log, failpoints(options.crashAt, log)),
      changed: () => this.changed(),
    });
  }

  /** Resumes unfinished runs, starts the definitions' sweeps, and repeats both every `sweepMs`. */
  async open(): Promise<void> {
    await this.sweep();
    this.sweepTimer = setInterval(() => void this.sweep().catch((error) => this.log.error({ err: error }, 'workflow sweep failed')), this.sweepMs);
    this.sweepTimer.unref();
  }

  /**
   * Records the run and starts executing it. A run already running or completed is left as it
   * is; one that failed (its definition threw) starts afresh.
   */
  async start(type: string, id: string, input: unknown = {}): Promise<void> {
    if (!this.types.has(type)) throw new Error(`no workflow definition of type ${type}`);
    if (this.stopped) return;
    const row = await this.table.start(type, id, input);
    if (row) this.resume(row);
  }

  /** Stops taking work: waits and timers end at once, running activities finish, runs stay `running` for the next `open()`. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.sweepTimer);
    this.stopping.abort(new RunInterrupted('the workflow engine is stopping'));
    await Promise.allSettled([...this.runs.values()].map((run) => run.done));
  }

  /** Stops for good because this process may no longer run the engine (it lost the engine lock): health says why. */
  async halt(reason: Error): Promise<void> {
    this.haltedBy = reason;
    this.log.error({ err: reason }, 'in-process workflow engine halted');
    await this.stop();
  }

  async health(): Promise<EngineHealth> {
    if (this.haltedBy) return { status: 'down', adapter: 'inprocess', detail: this.haltedBy.message };
    return { status: 'ok', adapter: 'inprocess' };
  }

  /** Resolves when every run of this process has finished or waits on a durable timer. */
  async idle(): Promise<void> {
    for (;;) {
      const busy = [...this.runs.values()].filter((run) => !run.sleeping);
      if (busy.length === 0) return;
      await Promise.race([Promise.allSettled(busy.map((run) => run.done)), new Promise<void>((resolve) => this.changeWaiters.push(resolve))]);
    }
  }

  /** Executes the runs recorded as `running` that this process does not execute yet (an API process recorded one: run-recorder.ts). */
  async resumeRecorded(): Promise<void> {
    if (this.stopped) return;
    await this.resumeDue();
  }

  /** Executes the due rows, but none a run left memory after the read began (see `leftAt`). */
  private async resumeDue(): Promise<void> {
    const asOf = ++this.tick;
    this.reading.add(asOf);
    try {
      const due = await this.table.due(this.clock.now().getTime() + this.holdSleepsUpToMs);
      for (const row of due) if ((this.leftAt.get(runKey(row.type, row.id)) ?? 0) < asOf) this.resume(row);
    } finally {
      this.reading.delete(asOf);
      // What no read still under way can be older than is no longer needed.
      const oldest = Math.min(this.tick + 1, ...this.reading);
      for (const [key, at] of this.leftAt) if (at < oldest) this.leftAt.delete(key);
    }
  }

  private changed(): void {
    for (const wake of this.changeWaiters.splice(0)) wake();
  }

  private async sweep(): Promise<void> {
    await this.resumeDue();
    for (const registration of this.types.values()) {
      if (!registration.sweep || this.stopped) continue;
      for (const { id, input } of await registration.sweep({ knex: this.knex, now: this.clock.now() })) await this.start(registration.definition.type, id, input);
    }
  }

  /** Executes a `running` row unless this process already does, or it sleeps beyond the hold horizon (the sweep resumes it). */
  private resume(row: RunRow): void {
    const key = runKey(row.type, row.id);
    const registration = this.types.get(row.type);
    if (this.stopped || row.status !== 'running' || this.runs.has(key) || !registration) return;
    if (row.wakeAtMs !== null && row.wakeAtMs > this.clock.now().getTime() + this.holdSleepsUpToMs) return;
    const run: ActiveRun = { type: row.type, id: row.id, sleeping: false, holdsSlot: false, done: Promise.resolve() };
    this.runs.set(key, run);
    run.done = this.execute(registration, row, run)
      .catch((error: unknown) => this.log.error({ err: error, workflow: row.type, id: row.id }, 'workflow run could not record its outcome'))
      .finally(() => {
        if (run.holdsSlot) this.slots.release();
        run.holdsSlot = false;
        this.runs.delete(key);
        this.leftAt.set(key, ++this.tick);
        this.changed();
      });
  }

  private async execute(registration: WorkflowRegistration, row: RunRow, run: ActiveRun): Promise<void> {
    let result: unknown;
    try {
      await this.slots.acquire(this.stopping.signal);
      run.holdsSlot = true;
      result = await this.contexts.execute(registration, row, run);
    } catch (error) {
      if (error instanceof RunInterrupted) return; // stopping or suspended: the row stays running
      this.log.error({ err: error, workflow: row.type, id: row.id }, 'workflow run failed');
      await this.table.finish(row, { status: 'failed', error: (error as Error)?.message ?? String(error) });
      return;
    }
    await this.table.finish(row, { status: 'completed', result: JSON.stringify(result ?? null) });
  }
}

const runKey = (type: string, id: string) => `${type}\u0000${id}`;
