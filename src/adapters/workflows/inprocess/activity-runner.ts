/**
 * How the in-process engine calls one activity, with the semantics Temporal gives an activity
 * task: retries per the activity's policy (a non-retryable type fails at once), each attempt
 * bounded by its start-to-close timeout (the attempt's signal aborts and it is retried), an
 * enclosing deadline aborting the running attempt, and arguments and results passed as JSON.
 */
import type { Logger } from 'pino';
import { ActivityFailed, type ActivityOptions } from '../../../../workflows/definition.js';
import { ActivityError, retryDelayMs, type ActivityContext } from '../../../core/es/workflow.js';
import type { Clock } from '../clock.js';

export type ActivityImplementation = (context: ActivityContext, ...args: unknown[]) => Promise<unknown>;

/** What an activity call is cancelled by (the caller's scope, src/adapters/workflows/inprocess/run-context.ts). */
export interface CallSignals {
  /** Stops new attempts and the wait between them. */
  cancel: AbortSignal;
  /** What the running attempt sees: an enclosing deadline. */
  activity: AbortSignal;
}

class ActivityTimedOut extends Error {
  override readonly name = 'ActivityTimedOut';
}

export class ActivityRunner {
  constructor(
    private readonly clock: Clock,
    private readonly log: Logger,
    /** Called before and after every attempt (failpoints.ts). */
    private readonly failpoint: (point: string) => void,
  ) {}

  /** Runs the activity until an attempt succeeds; throws `ActivityFailed` when it fails for good. */
  async call(run: { type: string; id: string }, signals: CallSignals, name: string, options: ActivityOptions, implementation: ActivityImplementation, args: unknown[]): Promise<unknown> {
    const input = args.map(jsonClone); // arguments travel as JSON on Temporal: the same here
    for (let attempt = 1; ; attempt++) {
      signals.cancel.throwIfAborted();
      this.failpoint(`${run.type}.${name}:before`);
      let failure: unknown;
      try {
        const result = jsonClone(await this.attempt(signals, options, implementation, input, attempt, name));
        this.failpoint(`${run.type}.${name}:after`);
        return result;
      } catch (error) {
        failure = error;
      }
      if (signals.activity.aborted) throw signals.activity.reason; // the deadline cancelled it: not a failure of the activity
      const { type, message, nonRetryable } = classify(failure);
      const never = nonRetryable || (options.retry.nonRetryableErrorTypes ?? []).includes(type);
      // The failure's message is logged (not only its type): what an operator needs to see why an export or a verification failed.
      if (never || attempt >= options.retry.maximumAttempts) {
        this.log.warn({ workflow: run.type, id: run.id, activity: name, attempt, type, message, retryable: !never }, never ? 'activity refused; not retried' : 'activity failed; attempts exhausted');
        throw new ActivityFailed(name, type, message, never);
      }
      const delay = retryDelayMs(options.retry, attempt);
      this.log.warn({ workflow: run.type, id: run.id, activity: name, attempt, type, message, retryInMs: delay }, 'activity failed; retrying');
      await this.clock.waitUntil(this.clock.now().getTime() + delay, signals.cancel);
    }
  }

  /** One attempt, raced against its signal: the deadline (or its start-to-close timeout) ends it at once. */
  private attempt(signals: CallSignals, options: ActivityOptions, implementation: ActivityImplementation, args: unknown[], attempt: number, name: string): Promise<unknown> {
    const timeout = new AbortController();
    const settled = new AbortController();
    const signal = AbortSignal.any([signals.activity, timeout.signal]);
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

/** The failure as Temporal would report it: an `ActivityError`'s type, `Timeout`, or the error's name. */
function classify(error: unknown): { type: string; message: string; nonRetryable: boolean } {
  if (error instanceof ActivityError) return { type: error.type, message: error.message, nonRetryable: error.nonRetryable };
  if (error instanceof ActivityTimedOut) return { type: 'Timeout', message: error.message, nonRetryable: false };
  const e = error as Error | undefined;
  return { type: e?.name ?? 'Error', message: e?.message ?? String(error), nonRetryable: false };
}

function jsonClone<T>(value: T): T {
  return value === undefined ? value : (JSON.parse(JSON.stringify(value)) as T);
}
