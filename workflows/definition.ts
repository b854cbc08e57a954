/**
 * What a durable workflow definition is written against: one definition per workflow type, run
 * by either engine (src/core/es/workflow.ts is the engine side: registrations, the engine port,
 * what activity implementations receive) with the same steps, retries, deadlines and timers.
 *
 * - A `WorkflowDefinition` names its activities with their options and gives a deterministic
 *   `run(ctx, input)`. Every effect is an activity called through `ctx.activities`; time comes
 *   from `ctx.now()` and waiting from `ctx.sleep`/`ctx.sleepUntil`/`ctx.withDeadline`.
 * - Temporal bundles this folder (workflows/index.ts is the bundle's entry); the in-process
 *   engine runs the same definitions. So everything here is deterministic code only: types,
 *   the workflow SDK and pure helpers; no Node built-ins, no I/O, no knex
 *   (test/architecture/ enforces it).
 */
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

export interface WorkflowDefinition<I = unknown, A extends ActivityInterface<A> = any, R = unknown> {
  /**
   * The type name `start(type, …)` takes. Temporal: workflow type `<type>Workflow` (the
   * function exported under that name by workflows/index.ts, the bundle's entry), workflow id `<type>-<id>`.
   */
  readonly type: string;
  /** Every activity the run may call, with its options. Names are unique across definitions (one Temporal task queue). */
  readonly activities: { readonly [K in keyof A]: ActivityOptions };
  /** Deterministic: no I/O, no clock or randomness but `ctx`'s; every effect is an activity. */
  run(ctx: WorkflowContext<A>, input: I): Promise<R>;
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

/**
 * The options of a step a sweep stands behind (a recovery workflow's one step, a timer workflow's
 * steps): database or blob store hiccups are retried; after the last attempt the run fails and the
 * next sweep starts it again. `nonRetryableErrorTypes`: errors no retry can cure (a message that
 * can never be sent).
 */
export function recoveryStep(nonRetryableErrorTypes?: string[]): ActivityOptions {
  return {
    startToCloseTimeoutMs: 60_000,
    retry: { initialIntervalMs: 1_000, backoffCoefficient: 2, maximumIntervalMs: 60_000, maximumAttempts: 10, ...(nonRetryableErrorTypes ? { nonRetryableErrorTypes } : {}) },
  };
}

/**
 * A workflow of one activity call: the shape of the recovery workflows, each started by its
 * registration's sweep for work a crash left undone and safe to run again. `call` hands the run's
 * input (and id) to the step the way that step takes them: those arguments are what Temporal
 * records, so they must not change shape once histories exist.
 */
export function oneStepWorkflow<I, A extends ActivityInterface<A>, R>(
  type: string,
  activities: { readonly [K in keyof A]: ActivityOptions },
  call: (steps: A, input: I, id: string) => Promise<R>,
): WorkflowDefinition<I, A, R> {
  return { type, activities, run: (ctx, input) => call(ctx.activities, input, ctx.id) };
}

/** Never wait less than this between two calls of a step (the activity's clock may run behind the workflow's). */
export const MIN_WAIT_MS = 1_000;

/** Sleeps until `at` (epoch ms), and at least `minMs`: a "not yet" may name a time the workflow's clock has passed. */
export function sleepAtLeastUntil(ctx: WorkflowContext<unknown>, at: number, minMs = MIN_WAIT_MS): Promise<void> {
  return ctx.sleepUntil(new Date(Math.max(at, ctx.now().getTime() + minMs)));
}

/** A timer step's answer: done (with its outcome), or not yet, and when to ask again. */
export type DueStep<R extends string> = { outcome: R } | { outcome: 'not_due'; dueAt: number };

/**
 * A timer workflow's wait: sleeps until `firstAt` (derived from recorded facts, so a run resumed
 * after a restart keeps the same wake time), then asks `step` until it answers other than
 * `not_due`, sleeping until each such answer's `dueAt`.
 */
export async function whenDue<R extends string>(ctx: WorkflowContext<unknown>, firstAt: Date, step: () => Promise<DueStep<R>>): Promise<R> {
  await ctx.sleepUntil(firstAt);
  for (;;) {
    const answer = await step();
    // A generic R does not narrow the union: 'not_due' is the one answer with a dueAt.
    if (answer.outcome !== 'not_due') return answer.outcome as R;
    await sleepAtLeastUntil(ctx, (answer as { dueAt: number }).dueAt);
  }
}
