/**
 * A definition (workflows/definition.ts) as a Temporal workflow function: its activities called
 * through `proxyActivities` (one proxy per distinct option set) and the port's context mapped
 * onto Temporal's deterministic timers and cancellation scopes. Bundled by Temporal with
 * workflows/index.ts; the in-process engine never loads it.
 */
import {
  ActivityFailure,
  ApplicationFailure,
  CancellationScope,
  isCancellation,
  proxyActivities,
  sleep,
  TimeoutFailure,
  type ActivityOptions as TemporalActivityOptions,
} from '@temporalio/workflow';
import { ActivityFailed, DeadlineExceeded, isDeadlineExceeded, type ActivityInterface, type ActivityOptions, type WorkflowContext, type WorkflowDefinition } from './definition.js';

/**
 * A definition as a Temporal workflow function taking `(id, input)`. Histories recorded before
 * the generic port started verifications with `(id)` alone: `input` then defaults to `{}`.
 */
export function temporalWorkflow<I, A extends ActivityInterface<A>, R>(definition: WorkflowDefinition<I, A, R>) {
  return async function (id: string, input?: I): Promise<R> {
    const ctx: WorkflowContext<A> = {
      type: definition.type,
      id,
      activities: activityProxies(definition.activities) as A,
      now: () => new Date(), // the workflow's clock: deterministic on replay
      sleep: (ms) => sleep(ms),
      sleepUntil: (at) => sleep(Math.max(0, at.getTime() - Date.now())),
      withDeadline,
      nonCancellable: (work) => CancellationScope.nonCancellable(work),
      isCancellation: (error) => isCancellation(error) && !isDeadlineExceeded(error),
    };
    return definition.run(ctx, input ?? ({} as I));
  };
}

/** Activity functions that throw the port's `ActivityFailed` (cancellations pass unchanged). */
function activityProxies(options: Record<string, ActivityOptions>): Record<string, (...args: unknown[]) => Promise<unknown>> {
  const proxies = new Map<ActivityOptions, Record<string, (...args: unknown[]) => Promise<unknown>>>();
  const calls: Record<string, (...args: unknown[]) => Promise<unknown>> = {};
  for (const [name, option] of Object.entries(options)) {
    let proxy = proxies.get(option);
    if (!proxy) {
      proxy = proxyActivities<Record<string, (...args: unknown[]) => Promise<unknown>>>(temporalOptions(option));
      proxies.set(option, proxy);
    }
    const activity = proxy[name]!;
    calls[name] = (...args) => activity(...args).catch((error: unknown) => Promise.reject(portFailure(name, error)));
  }
  return calls;
}

function temporalOptions(option: ActivityOptions): TemporalActivityOptions {
  const { retry } = option;
  return {
    startToCloseTimeout: option.startToCloseTimeoutMs,
    ...(option.heartbeatTimeoutMs !== undefined ? { heartbeatTimeout: option.heartbeatTimeoutMs } : {}),
    retry: {
      initialInterval: retry.initialIntervalMs,
      backoffCoefficient: retry.backoffCoefficient,
      maximumInterval: retry.maximumIntervalMs,
      maximumAttempts: retry.maximumAttempts,
      nonRetryableErrorTypes: [...(retry.nonRetryableErrorTypes ?? [])],
    },
  };
}

function portFailure(activity: string, error: unknown): unknown {
  if (isCancellation(error) || !(error instanceof ActivityFailure)) return error;
  const cause = error.cause;
  if (cause instanceof ApplicationFailure) return new ActivityFailed(activity, cause.type ?? 'Error', cause.message, Boolean(cause.nonRetryable));
  if (cause instanceof TimeoutFailure) return new ActivityFailed(activity, 'Timeout', cause.message, false);
  return new ActivityFailed(activity, cause?.name ?? 'Error', cause?.message ?? error.message, false);
}

/**
 * Races `work` against a durable timer. When the timer wins, the work's scope is cancelled
 * (a running activity is asked to stop) and DeadlineExceeded is thrown. Commands, in order:
 * StartTimer, the work's own, CancelTimer when the work finished first.
 */
async function withDeadline<T>(deadlineAt: Date, work: () => Promise<T>): Promise<T> {
  const remainingMs = deadlineAt.getTime() - Date.now();
  if (remainingMs <= 0) throw new DeadlineExceeded('deadline passed before the work started');
  let expired = false;
  const steps = new CancellationScope();
  const timer = new CancellationScope();
  const alarm = timer.run(async () => {
    await sleep(remainingMs);
    expired = true;
    steps.cancel();
  });
  try {
    return await steps.run(work);
  } catch (error) {
    if (expired) throw new DeadlineExceeded('deadline passed');
    throw error;
  } finally {
    timer.cancel();
    await alarm.catch(() => undefined); // the cancelled timer rejects: expected
  }
}
