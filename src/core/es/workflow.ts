/**
 * The engine side of the workflow port (the definitions' side is workflows/definition.ts):
 * a definition registered with its activities' implementations and its recovery sweep, what an
 * implementation receives, the errors it throws, and the engine port both engines implement:
 * in-process (src/adapters/workflows/inprocess/) and Temporal (src/adapters/workflows/temporal/).
 */
import type { Knex } from 'knex';
import type { ActivityInterface, RetryPolicy, WorkflowDefinition } from '../../../workflows/definition.js';

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

/** Ids an engine (re)starts at `open()` and on its periodic sweep: work the domain says is unfinished. */
export interface SweepSource {
  /** The service database (read models). */
  knex: Knex;
  /** The engine's time (in-process: its clock; Temporal: the process's), for work that falls due. */
  now: Date;
}

/**
 * What an engine is built from: a definition, its activities' implementations and, optionally,
 * its recovery sweep: ids the domain says need a run (say, verifications queued but never
 * started after a crash between the append and `start`); starting one that is running or
 * finished is a no-op. The sweep reads the database, so it lives here on the engine's side,
 * never in the deterministic definition; the engine's process calls it at `open()` and
 * periodically, never inside a workflow.
 */
export interface WorkflowRegistration<I = unknown, A extends ActivityInterface<A> = any, R = unknown> {
  definition: WorkflowDefinition<I, A, R>;
  activities: ActivityImplementations<A>;
  sweep?(source: SweepSource): Promise<{ id: string; input: I }[]>;
}

/** Pairs a definition with its implementations (and sweep), checking they match. */
export function registerWorkflow<I, A extends ActivityInterface<A>, R>(
  definition: WorkflowDefinition<I, A, R>,
  activities: ActivityImplementations<A>,
  sweep?: (source: SweepSource) => Promise<{ id: string; input: I }[]>,
): WorkflowRegistration<I, A, R> {
  return sweep ? { definition, activities, sweep } : { definition, activities };
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

/** Delay before attempt `attempt + 1` (attempt ≥ 1) under `policy`. */
export function retryDelayMs(policy: RetryPolicy, attempt: number): number {
  return Math.min(policy.initialIntervalMs * policy.backoffCoefficient ** (attempt - 1), policy.maximumIntervalMs);
}
