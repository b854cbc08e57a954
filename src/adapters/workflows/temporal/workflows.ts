/**
 * The workflow bundle's entry: every definition (src/core/workflow.ts) turned into a Temporal
 * workflow function, exported under its Temporal type name `<type>Workflow`. Deterministic code
 * only (no Node built-ins, no I/O, no clocks but the workflow's); every effect is an activity
 * called through `proxyActivities`, one proxy per distinct option set.
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
import { ActivityFailed, DeadlineExceeded, isDeadlineExceeded, type ActivityInterface, type ActivityOptions, type WorkflowContext, type WorkflowDefinition } from '../../../core/workflow.js';
import { verificationWorkflow as verification } from '../../../features/verifications/workflow.js';
import { mailDeliveryWorkflow as mailDelivery } from '../../../features/mail/workflow.js';
import { uploadExpiryWorkflow as uploadExpiry } from '../../../features/uploads/workflow.js';
import { shareMailWorkflow as shareMail } from '../../../features/sharing/workflow.js';
import { invitationMailWorkflow as invitationMail } from '../../../features/accounts/invitation-workflow.js';
import { meteringReleaseWorkflow as meteringRelease } from '../../../features/usage/release-workflow.js';

/** One line per definition; the export's name is `temporalWorkflowType(definition.type)`. */
export const verificationWorkflow = temporalWorkflow(verification);
export const mailDeliveryWorkflow = temporalWorkflow(mailDelivery);
export const uploadExpiryWorkflow = temporalWorkflow(uploadExpiry);
export const shareMailWorkflow = temporalWorkflow(shareMail);
export const invitationMailWorkflow = temporalWorkflow(invitationMail);
export const meteringReleaseWorkflow = temporalWorkflow(meteringRelease);

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
