/**
 * The workflow port: one definition per workflow type, run by either engine with the same
 * steps, retries, deadlines and durable timers.
 *
 * - A `WorkflowDefinition` names its activities with their options and gives a deterministic
 *   `run(ctx, input)`. Every effect is an activity called through `ctx.activities`; time comes
 *   from `ctx.now()` and waiting from `ctx.sleep`/`ctx.sleepUntil`/`ctx.withDeadline`.
 * - The activities' implementations are registered next to the definition by the composition
 *   root (`WorkflowRegistration`); each receives an `ActivityContext` (abort signal, attempt,
 *   heartbeat) before its own arguments.
 * - Two engines run registrations: in-process (src/adapters/workflows/inprocess-engine.ts) and
 *   Temporal (src/adapters/workflows/temporal/).
 *
 * This module is pure (no Node built-ins, type imports only): Temporal's workflow bundle
 * includes it, and so do definitions, which may import from it only types, the error classes
 * and the pure helpers below.
 */
import type { Knex } from 'knex';

/** How an activity call is retried. The first attempt counts: `maximumAttempts: 1` never retries. */
export interface RetryPolicy {
  /** Delay before the second attempt. */
  initialIntervalMs: number;
  /** Each further delay is the previous one times this. */
  backoffCoefficient: number;
  /** No delay is longer than this. */
  maximumIntervalMs: number;
  maximumAttempts: number;
  /** `ActivityError.type`s never retried (a business failure: retrying cannot change it). */
  nonRetryableErrorTypes?: readonly string[];
}

export interface ActivityOptions {
  /** One attempt may run this long; then it is cancelled (its signal aborts) and retried. */
  startToCloseTimeoutMs: number;
  /**
   * Temporal: a worker whose attempt has not heartbeat for this long is taken for dead and the
   * attempt is retried elsewhere; the engine heartbeats for the activity while it runs.
   * In-process the activity shares the engine's process, so only its start-to-close applies.
   */
  heartbeatTimeoutMs?: number;
  retry: RetryPolicy;
}

/** A function an activity may be called as from workflow code. Arguments and results are plain JSON. */
export type ActivityFunction = (...args: any[]) => Promise<unknown>;

/** The definition's view of its activities: `{ name(args): Promise<result> }`. */
export type ActivityInterface<A> = { [K in keyof A]: ActivityFunction };

/** What an activity implementation gets besides its arguments. */
export interface ActivityContext {
  /** Aborts when the attempt must stop: the workflow's deadline passed, or the attempt timed out (Temporal: cancelled). */
  readonly signal: AbortSignal;
  /** 1 for the first attempt. */
  readonly attempt: number;
  /** Reports progress (Temporal: an activity heartbeat; in-process: nothing to report to). */
  heartbeat(details?: unknown): void;
}

/** The implementations of a definition's activities: each takes the context first, then the call's arguments. */
export type ActivityImplementations<A extends ActivityInterface<A>> = {
  [K in keyof A]: (context: ActivityContext, ...args: Parameters<A[K]>) => ReturnType<A[K]>;
};

/**
 * What a definition's `run` works with. Both engines give the same meaning to every member:
 * - `activities.<name>(...)`: runs the activity with its options, retrying per its policy;
 *   after the last attempt (or at once for a non-retryable type) it throws `ActivityFailed`.
 * - `sleep(ms)` / `sleepUntil(at)`: durable timers: a restart neither loses nor lengthens them.
 *   Derive waits from recorded timestamps where there is one (`sleepUntil(completedAt + 30 days)`):
 *   the run is re-executed from the top after a restart.
 * - `withDeadline(at, work)`: runs `work`; when `at` passes first, the work is cancelled (a running
 *   activity's signal aborts, pending timers and retries stop) and `DeadlineExceeded` is thrown.
 *   A deadline already past throws at once, before `work` starts.
 * - `nonCancellable(work)`: `work` runs to its end even when an enclosing deadline passes or the
 *   engine stops (recording a failure must not be cut short).
 * - `isCancellation(error)`: the run was interrupted from outside (engine stopping, run
 *   suspended, Temporal cancellation): rethrow it, record nothing; the run resumes or restarts.
 *   A `DeadlineExceeded` is not one: the definition handles its own deadlines.
 */
export interface WorkflowContext<A> {
  readonly type: string;
  /** The id the run was started with (`start(type, id, input)`): one run per (type, id). */
  readonly id: string;
  readonly activities: A;
  now(): Date;
  sleep(ms: number): Promise<void>;
  sleepUntil(at: Date): Promise<void>;
  withDeadline<T>(deadlineAt: Date, work: () => Promise<T>): Promise<T>;
  nonCancellable<T>(work: () => Promise<T>): Promise<T>;
  isCancellation(error: unknown): boolean;
}

/** Ids an engine (re)starts at `open()` and on its periodic sweep: work the domain says is unfinished. */
export interface SweepSource {
  /** The service database (read models). */
  knex: Knex;
  /** The engine's time (in-process: its clock; Temporal: the process's), for work that falls due. */
  now: Date;
}

export interface WorkflowDefinition<I = unknown, A extends ActivityInterface<A> = any, R = unknown> {
  /**
   * The type name `start(type, …)` takes. Temporal: workflow type `<type>Workflow` (the
   * function exported under that name by temporal/workflows.ts), workflow id `<type>-<id>`.
   */
  readonly type: string;
  /** Every activity the run may call, with its options. Names are unique across definitions (one Temporal task queue). */
  readonly activities: { readonly [K in keyof A]: ActivityOptions };
  /** Deterministic: no I/O, no clock or randomness but `ctx`'s; every effect is an activity. */
  run(ctx: WorkflowContext<A>, input: I): Promise<R>;
  /**
   * Optional recovery: ids the domain says need a run (say, verifications queued but never
   * started after a crash between the append and `start`). Starting one that is running or
   * finished is a no-op. Called by the engine's process, never inside a workflow.
   */
  sweep?(source: SweepSource): Promise<{ id: string; input: I }[]>;
}

/** A definition with its activities' implementations: what an engine is built from. */
export interface WorkflowRegistration<I = unknown, A extends ActivityInterface<A> = any, R = unknown> {
  definition: WorkflowDefinition<I, A, R>;
  activities: ActivityImplementations<A>;
}

/** Pairs a definition with its implementations, checking they match. */
export function registerWorkflow<I, A extends ActivityInterface<A>, R>(definition: WorkflowDefinition<I, A, R>, activities: ActivityImplementations<A>): WorkflowRegistration<I, A, R> {
  return { definition, activities };
}

/**
 * What both engines check at construction, so a definition that runs on one runs on the other:
 * type names of letters and digits (Temporal's workflow id `<type>-<id>` must be unambiguous),
 * unique types, activity names unique across definitions (Temporal: one task queue), and an
 * implementation for every declared activity.
 */
export function checkRegistrations(registrations: readonly WorkflowRegistration[]): void {
  const types = new Set<string>();
  const activityNames = new Map<string, string>();
  for (const { definition, activities } of registrations) {
    if (!/^[A-Za-z][A-Za-z0-9]*$/.test(definition.type)) throw new Error(`workflow type ${definition.type}: letters and digits only`);
    if (types.has(definition.type)) throw new Error(`workflow type ${definition.type} is registered twice`);
    types.add(definition.type);
    for (const name of Object.keys(definition.activities)) {
      const owner = activityNames.get(name);
      if (owner) throw new Error(`activity ${name} is registered twice (workflows ${owner} and ${definition.type}); activity names are global`);
      activityNames.set(name, definition.type);
      if (typeof (activities as Record<string, unknown>)[name] !== 'function') throw new Error(`workflow ${definition.type} declares activity ${name} without an implementation`);
    }
  }
}

/**
 * The engine port. `start` is idempotent per (type, id): starting a run that is running or has
 * finished is a no-op (a run that crashed without an outcome may be started again).
 */
export interface WorkflowEngine {
  readonly kind: 'inprocess' | 'temporal';
  /** Resumes unfinished runs (and the definitions' sweeps, then periodically) and accepts starts. */
  open(): Promise<void>;
  /**
   * Starts a run of `type` for `id`. Resolves once the engine has recorded the start (in-process:
   * its runs table; Temporal: the server, or in memory while the server is unreachable, the
   * definition's sweep being the durable record then). Rejects for an unknown type.
   */
  start(type: string, id: string, input?: unknown): Promise<void>;
  /** Stops taking work and drains: running activities finish, runs pause for the next `open()` (in-process) or stay with the server (Temporal). */
  stop(): Promise<void>;
  /** Resolves when no run this process started or resumed is executing (waiting on a durable timer counts as idle in-process). */
  idle(): Promise<void>;
  /** The engine as a dependency in GET /v1/public/health (absent: always ok, nothing external). */
  health?(): Promise<EngineHealth>;
}

export interface EngineHealth {
  status: 'ok' | 'degraded' | 'down';
  adapter: string;
  detail?: string;
}

/**
 * Thrown inside an activity to name its failure: `type` is what retry policies
 * (`nonRetryableErrorTypes`) and workflow code match on, `message` travels to the workflow.
 * Anything else an activity throws is a retryable failure typed by its `name`.
 */
export class ActivityError extends Error {
  override readonly name = 'ActivityError';
  readonly nonRetryable: boolean;
  readonly details: unknown[];
  constructor(
    readonly type: string,
    message: string,
    options: { nonRetryable?: boolean; details?: unknown[]; cause?: unknown } = {},
  ) {
    super(message, { cause: options.cause });
    this.nonRetryable = options.nonRetryable ?? false;
    this.details = options.details ?? [];
  }
}

/** What workflow code catches from an activity call that failed for good (retries exhausted, non-retryable, timed out). */
export class ActivityFailed extends Error {
  override readonly name = 'ActivityFailed';
  constructor(
    readonly activity: string,
    /** The `ActivityError.type`, the thrown error's name, or `Timeout`. */
    readonly type: string,
    message: string,
    readonly nonRetryable: boolean,
  ) {
    super(message);
  }
}

/** Thrown by `withDeadline` when its deadline passed before the work finished. */
export class DeadlineExceeded extends Error {
  override readonly name = 'DeadlineExceeded';
}

export function isDeadlineExceeded(error: unknown): error is DeadlineExceeded {
  return error instanceof DeadlineExceeded || (error as Error | undefined)?.name === 'DeadlineExceeded';
}

/** Delay before attempt `attempt + 1` (attempt ≥ 1) under `policy`. */
export function retryDelayMs(policy: RetryPolicy, attempt: number): number {
  return Math.min(policy.initialIntervalMs * policy.backoffCoefficient ** (attempt - 1), policy.maximumIntervalMs);
}
