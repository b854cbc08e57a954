import { AsyncLocalStorage } from 'node:async_hooks';
import { setMaxListeners } from 'node:events';
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import { ActivityFailed, DeadlineExceeded, type ActivityOptions, type WorkflowContext } from '../../../workflows/definition.js';
import { ActivityError, checkRegistrations, retryDelayMs, type ActivityContext, type WorkflowEngine, type WorkflowRegistration } from '../../core/workflow.js';
import { systemClock, type Clock } from './clock.js';

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

/** Stops a run without an outcome: the engine is stopping, or the run is suspended in a long sleep. Its row stays `running`. */
class RunInterrupted extends Error {
  override readonly name = 'RunInterrupted';
}

class ActivityTimedOut extends Error {
  override readonly name = 'ActivityTimedOut';
}

/** What a workflow-code call is cancelled by: `cancel` stops timers, waits and new attempts; `activity` is what running activities see. */
interface Scope {
  cancel: AbortSignal;
  activity: AbortSignal;
  /** False inside `nonCancellable`: the run is never suspended there. */
  cancellable: boolean;
}

interface RunRow {
  type: string;
  id: string;
  input: unknown;
  status: 'running' | 'completed' | 'failed';
  /** Wake times (epoch ms) of the run's `ctx.sleep` calls, by position. */
  timers: number[];
  wakeAtMs: number | null;
}

interface ActiveRun {
  type: string;
  id: string;
  /** Waiting on a durable timer (counts as idle). */
  sleeping: boolean;
  holdsSlot: boolean;
  done: Promise<void>;
}

const NEVER = new AbortController().signal;
const TABLE = 'workflow_runs';

/**
 * Runs workflow definitions (workflows/definition.ts, registered as src/core/workflow.ts says) inside the server process, with the
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
 * One engine per database: two processes running this engine on one database would both
 * resume the same rows (the activities' idempotency keeps that correct, not efficient).
 */
export class InProcessWorkflowEngine implements WorkflowEngine {
  readonly kind = 'inprocess' as const;
  private readonly types: Map<string, WorkflowRegistration>;
  private readonly runs = new Map<string, ActiveRun>();
  private readonly scopes = new AsyncLocalStorage<{ run: ActiveRun; scope: Scope }>();
  private readonly stopping = new AbortController();
  private readonly slots: Slots;
  private readonly clock: Clock;
  private readonly sweepMs: number;
  private readonly holdSleepsUpToMs: number;
  private readonly crashAt?: string;
  private readonly changeWaiters: (() => void)[] = [];
  private migrated?: Promise<void>;
  private sweepTimer?: NodeJS.Timeout;
  private stopped = false;

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
    this.crashAt = options.crashAt;
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
    await this.migrate();
    const stored = JSON.stringify(input ?? {});
    const [written] = await this.knex(TABLE)
      .insert({ type, id, input: stored, status: 'running', timers: '[]' })
      .onConflict(['type', 'id'])
      .merge({ input: stored, status: 'running', timers: '[]', wake_at_ms: null, error: null, result: null, updated_at: this.knex.fn.now() })
      .where(`${TABLE}.status`, 'failed')
      .returning('*');
    // Nothing written: the run exists and is running or completed (read it to resume the former).
    const row = written ?? (await this.knex(TABLE).where({ type, id }).first());
    if (row) this.resume(toRunRow(row));
  }

  /** Stops taking work: waits and timers end at once, running activities finish, runs stay `running` for the next `open()`. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.sweepTimer);
    this.stopping.abort(new RunInterrupted('the workflow engine is stopping'));
    await Promise.allSettled([...this.runs.values()].map((run) => run.done));
  }

  /** Resolves when every run of this process has finished or waits on a durable timer. */
  async idle(): Promise<void> {
    for (;;) {
      const busy = [...this.runs.values()].filter((run) => !run.sleeping);
      if (busy.length === 0) return;
      await Promise.race([Promise.allSettled(busy.map((run) => run.done)), new Promise<void>((resolve) => this.changeWaiters.push(resolve))]);
    }
  }

  private changed(): void {
    for (const wake of this.changeWaiters.splice(0)) wake();
  }

  private migrate(): Promise<void> {
    this.migrated ??= (async () => {
      await this.knex.raw(`
        create table if not exists ${TABLE} (
          type text not null,
          id text not null,
          input text not null,
          status text not null,
          timers text not null default '[]',
          wake_at_ms bigint,
          result text,
          error text,
          created_at timestamptz not null default now(),
          updated_at timestamptz not null default now(),
          primary key (type, id)
        )`);
      await this.knex.raw(`create index if not exists ${TABLE}_running on ${TABLE} (wake_at_ms) where status = 'running'`);
    })().catch((error: unknown) => {
      this.migrated = undefined;
      throw error;
    });
    return this.migrated;
  }

  private async sweep(): Promise<void> {
    await this.migrate();
    const horizon = this.clock.now().getTime() + this.holdSleepsUpToMs;
    const due = await this.knex(TABLE)
      .where({ status: 'running' })
      .andWhere((q) => q.whereNull('wake_at_ms').orWhere('wake_at_ms', '<=', horizon))
      .orderBy('created_at');
    for (const row of due) this.resume(toRunRow(row));
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
        this.changed();
      });
  }

  private async execute(registration: WorkflowRegistration, row: RunRow, run: ActiveRun): Promise<void> {
    const root: Scope = { cancel: this.stopping.signal, activity: NEVER, cancellable: true };
    let result: unknown;
    try {
      await this.slots.acquire(this.stopping.signal);
      run.holdsSlot = true;
      const ctx = this.context(registration, row, run);
      result = await this.scopes.run({ run, scope: root }, () => registration.definition.run(ctx, row.input));
    } catch (error) {
      if (error instanceof RunInterrupted) return; // stopping or suspended: the row stays running
      this.log.error({ err: error, workflow: row.type, id: row.id }, 'workflow run failed');
      await this.record(row, { status: 'failed', error: (error as Error)?.message ?? String(error) });
      return;
    }
    await this.record(row, { status: 'completed', result: JSON.stringify(result ?? null) });
  }

  private async record(row: RunRow, outcome: { status: 'completed' | 'failed'; result?: string; error?: string }): Promise<void> {
    await this.knex(TABLE)
      .where({ type: row.type, id: row.id, status: 'running' })
      .update({ ...outcome, wake_at_ms: null, updated_at: this.knex.fn.now() });
  }

  private context(registration: WorkflowRegistration, row: RunRow, run: ActiveRun): WorkflowContext<Record<string, (...args: unknown[]) => Promise<unknown>>> {
    const activities: Record<string, (...args: unknown[]) => Promise<unknown>> = {};
    const implementations = registration.activities as Record<string, (context: ActivityContext, ...args: unknown[]) => Promise<unknown>>;
    for (const [name, options] of Object.entries(registration.definition.activities as Record<string, ActivityOptions>)) {
      activities[name] = (...args) => this.callActivity(run, name, options, implementations[name]!, args);
    }
    const timers = [...row.timers];
    let nextTimer = 0;
    return {
      type: row.type,
      id: row.id,
      activities,
      now: () => this.clock.now(),
      sleep: async (ms) => {
        const position = nextTimer++;
        let at = timers[position];
        if (at === undefined) {
          this.scope(run).cancel.throwIfAborted();
          at = this.clock.now().getTime() + ms;
          timers[position] = at;
          // Recorded before waiting: a restart resumes this sleep at the same wake time.
          await this.knex(TABLE).where({ type: row.type, id: row.id }).update({ timers: JSON.stringify(timers), updated_at: this.knex.fn.now() });
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
    return current && current.run === run ? current.scope : { cancel: this.stopping.signal, activity: NEVER, cancellable: true };
  }

  private async sleepUntil(run: ActiveRun, row: RunRow, atMs: number): Promise<void> {
    const scope = this.scope(run);
    scope.cancel.throwIfAborted();
    if (atMs <= this.clock.now().getTime()) return;
    if (scope.cancellable && atMs - this.clock.now().getTime() > this.holdSleepsUpToMs) {
      await this.knex(TABLE).where({ type: row.type, id: row.id }).update({ wake_at_ms: atMs, updated_at: this.knex.fn.now() });
      throw new RunInterrupted(`suspended until ${new Date(atMs).toISOString()}`);
    }
    // A sleeping run gives its execution slot to another until it wakes.
    run.sleeping = true;
    if (run.holdsSlot) this.slots.release();
    run.holdsSlot = false;
    this.changed();
    try {
      await this.clock.waitUntil(atMs, scope.cancel);
    } finally {
      run.sleeping = false;
    }
    await this.slots.acquire(scope.cancel);
    run.holdsSlot = true;
  }

  private async withDeadline<T>(run: ActiveRun, atMs: number, work: () => Promise<T>): Promise<T> {
    const parent = this.scope(run);
    parent.cancel.throwIfAborted();
    if (atMs <= this.clock.now().getTime()) throw new DeadlineExceeded('deadline passed before the work started');
    const deadline = new AbortController();
    const timer = new AbortController();
    this.clock
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

  private async callActivity(run: ActiveRun, name: string, options: ActivityOptions, implementation: (context: ActivityContext, ...args: unknown[]) => Promise<unknown>, args: unknown[]): Promise<unknown> {
    const scope = this.scope(run);
    const input = args.map(jsonClone); // arguments travel as JSON on Temporal: the same here
    for (let attempt = 1; ; attempt++) {
      scope.cancel.throwIfAborted();
      this.crashIfAt(`${run.type}.${name}:before`);
      let failure: unknown;
      try {
        const result = jsonClone(await this.attempt(scope, options, implementation, input, attempt, name));
        this.crashIfAt(`${run.type}.${name}:after`);
        return result;
      } catch (error) {
        failure = error;
      }
      if (scope.activity.aborted) throw scope.activity.reason; // the deadline cancelled it: not a failure of the activity
      const { type, message, nonRetryable } = classify(failure);
      const never = nonRetryable || (options.retry.nonRetryableErrorTypes ?? []).includes(type);
      if (never || attempt >= options.retry.maximumAttempts) throw new ActivityFailed(name, type, message, never);
      const delay = retryDelayMs(options.retry, attempt);
      this.log.warn({ workflow: run.type, id: run.id, activity: name, attempt, type, retryInMs: delay }, 'activity failed; retrying');
      await this.clock.waitUntil(this.clock.now().getTime() + delay, scope.cancel);
    }
  }

  private crashIfAt(point: string): void {
    if (this.crashAt !== point) return;
    this.log.warn({ crash_at: point }, 'CRASH_AT reached: killing this process');
    process.kill(process.pid, 'SIGKILL');
  }

  /** One attempt, raced against its signal: the deadline (or its start-to-close timeout) ends it at once. */
  private attempt(scope: Scope, options: ActivityOptions, implementation: (context: ActivityContext, ...args: unknown[]) => Promise<unknown>, args: unknown[], attempt: number, name: string): Promise<unknown> {
    const timeout = new AbortController();
    const settled = new AbortController();
    const signal = AbortSignal.any([scope.activity, timeout.signal]);
    this.clock
      .waitUntil(this.clock.now().getTime() + options.startToCloseTimeoutMs, settled.signal)
      .then(() => timeout.abort(new ActivityTimedOut(`activity ${name} did not finish within ${options.startToCloseTimeoutMs} ms`)))
      .catch(() => undefined);
    const context: ActivityContext = { signal, attempt, heartbeat: () => undefined };
    return new Promise<unknown>((resolve, reject) => {
      const onAbort = () => finish(() => reject(signal.reason));
      const finish = (settle: () => void) => {
        signal.removeEventListener('abort', onAbort);
        settled.abort();
        settle();
      };
      if (signal.aborted) return onAbort();
      signal.addEventListener('abort', onAbort, { once: true });
      Promise.resolve()
        .then(() => implementation(context, ...args))
        .then(
          (value) => finish(() => resolve(value)),
          (error: unknown) => finish(() => reject(error)),
        );
    });
  }
}

function classify(error: unknown): { type: string; message: string; nonRetryable: boolean } {
  if (error instanceof ActivityError) return { type: error.type, message: error.message, nonRetryable: error.nonRetryable };
  if (error instanceof ActivityTimedOut) return { type: 'Timeout', message: error.message, nonRetryable: false };
  const e = error as Error | undefined;
  return { type: e?.name ?? 'Error', message: e?.message ?? String(error), nonRetryable: false };
}

function jsonClone<T>(value: T): T {
  return value === undefined ? value : (JSON.parse(JSON.stringify(value)) as T);
}

const runKey = (type: string, id: string) => `${type}\u0000${id}`;

function toRunRow(row: Record<string, unknown>): RunRow {
  return {
    type: row.type as string,
    id: row.id as string,
    input: JSON.parse(row.input as string),
    status: row.status as RunRow['status'],
    timers: JSON.parse((row.timers as string | null) ?? '[]'),
    wakeAtMs: row.wake_at_ms === null || row.wake_at_ms === undefined ? null : Number(row.wake_at_ms),
  };
}

/** A counting semaphore whose waits can be abandoned (abort: the waiter leaves the queue). */
class Slots {
  private used = 0;
  private readonly queue: { grant: () => void }[] = [];

  constructor(private readonly size: number) {}

  acquire(signal: AbortSignal): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      if (signal.aborted) return reject(signal.reason);
      if (this.used < this.size) {
        this.used++;
        return resolve();
      }
      const onAbort = () => {
        const index = this.queue.indexOf(waiter);
        if (index >= 0) this.queue.splice(index, 1);
        reject(signal.reason);
      };
      const waiter = {
        grant: () => {
          signal.removeEventListener('abort', onAbort);
          resolve();
        },
      };
      signal.addEventListener('abort', onAbort, { once: true });
      this.queue.push(waiter);
    });
  }

  /** Hands the slot to the next waiter, or frees it. */
  release(): void {
    const next = this.queue.shift();
    if (next) next.grant();
    else this.used--;
  }
}
