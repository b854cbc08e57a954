import { Context } from '@temporalio/activity';
import type { TemporalActivities } from '../../src/adapters/workflows/temporal/activities.js';

export type Call = [step: string, ...args: unknown[]];

/**
 * Stand-ins for the Temporal activities: they record each call and do no work, so workflow
 * logic (order, deadline, failure reasons) is tested without the analysis, a database or blobs.
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
