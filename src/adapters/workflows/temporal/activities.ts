import { ApplicationFailure, Context } from '@temporalio/activity';
import { ActivityError, checkRegistrations, type ActivityContext, type WorkflowRegistration } from '../../../core/es/workflow.js';

/** How often an activity with a heartbeat timeout heartbeats (at most a third of that timeout). */
const HEARTBEAT_MS = 5_000;

export type TemporalActivityFunction = (...args: unknown[]) => Promise<unknown>;
export type TemporalActivities = Record<string, TemporalActivityFunction>;

/**
 * The Temporal activities of every registered definition, by activity name (one task queue:
 * names must be unique across definitions). Each wraps its implementation:
 * - the implementation gets the port's `ActivityContext`: Temporal's cancellation signal (a
 *   deadline cancelling the workflow's scope reaches it through the heartbeat), the attempt,
 *   heartbeat;
 * - an activity with a heartbeat timeout heartbeats `{ step: <name> }` at once and every 5 s
 *   while it runs, so a dead worker is noticed within that timeout, not at start-to-close;
 * - an `ActivityError` becomes an `ApplicationFailure` of its type (non-retryable when it says
 *   so; the retry policy's `nonRetryableErrorTypes` apply too); anything else is rethrown as is
 *   (a retryable failure typed by its name).
 * Results are JSON (Temporal's payload converter), as the port requires of both engines.
 */
export function createTemporalActivities(registrations: readonly WorkflowRegistration[]): TemporalActivities {
  checkRegistrations(registrations);
  const activities: TemporalActivities = {};
  for (const { definition, activities: implementations } of registrations) {
    for (const [name, options] of Object.entries(definition.activities as Record<string, { heartbeatTimeoutMs?: number }>)) {
      const implementation = (implementations as Record<string, (context: ActivityContext, ...args: unknown[]) => Promise<unknown>>)[name]!;
      const heartbeatEveryMs = options.heartbeatTimeoutMs === undefined ? undefined : Math.min(HEARTBEAT_MS, options.heartbeatTimeoutMs / 3);
      activities[name] = async (...args: unknown[]) => {
        const current = Context.current();
        const context: ActivityContext = { signal: current.cancellationSignal, attempt: current.info.attempt, heartbeat: (details) => current.heartbeat(details) };
        let beat: NodeJS.Timeout | undefined;
        if (heartbeatEveryMs !== undefined) {
          current.heartbeat({ step: name });
          beat = setInterval(() => current.heartbeat({ step: name }), heartbeatEveryMs);
        }
        try {
          return await implementation(context, ...args);
        } catch (error) {
          if (error instanceof ActivityError) {
            throw ApplicationFailure.create({ type: error.type, message: error.message, nonRetryable: error.nonRetryable, details: error.details });
          }
          throw error;
        } finally {
          clearInterval(beat);
        }
      };
    }
  }
  return activities;
}
