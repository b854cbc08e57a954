import { Context } from '@temporalio/activity';
import type { VerificationWorkflowActivities } from '../../workflows/verifications/workflow.js';

/** The activities as the Temporal worker registers them (no context argument: the fakes read Temporal's). */
type TemporalActivities = VerificationWorkflowActivities;

export type Call = [step: string, ...args: unknown[]];

/**
 * Stand-ins for the verification workflow's activities, registered on a Temporal worker directly:
 * they record each call and do no work, so workflow logic (order, deadline, failure reasons) is
 * tested without the analysis, a database or blobs.
 */
export function fakeActivities(overrides: Partial<TemporalActivities> = {}): { activities: TemporalActivities; calls: Call[] } {
  const calls: Call[] = [];
  const record =
    <A extends unknown[], R>(step: string, fn: (...args: A) => Promise<R>) =>
    async (...args: A): Promise<R> => {
      calls.push([step, ...args]);
      return fn(...args);
    };
  const done = async () => undefined;
  const base: TemporalActivities = {
    // The deadline counts from when the workflow asked: server time, which the test server skips.
    snapshot: async () => ({ status: 'queued', accountId: 'acc_1', deadlineAt: Context.current().info.scheduledTimestampMs + 10 * 60_000 }),
    start: done,
    analyzeAndGrade: done,
    signAndRender: done,
    thumbnail: done,
    complete: done,
    fail: done,
  };
  const merged = { ...base, ...overrides };
  const activities = Object.fromEntries(Object.entries(merged).map(([step, fn]) => [step, record(step, fn as (...args: unknown[]) => Promise<unknown>)])) as unknown as TemporalActivities;
  return { activities, calls };
}
