import crypto from 'node:crypto';
import { Context } from '@temporalio/activity';
import { expect, it } from 'vitest';
import type { requestExpiryWorkflow } from '../../workflows/index.js';
import { expiryRunId, REQUEST_EXPIRY_WORKFLOW_TYPE, type RequestExpiryActivities, type RequestExpiryStep } from '../../workflows/requests/workflow.js';
import { runOnTimeSkipping, timeSkippingServer, useTimeSkippingEnv } from '../support/timeskip.js';

/**
 * The verification request expiry workflow (issue 24, must-work 4) on Temporal's time-skipping
 * test server, with scripted activities: the wait until `expires_at` is a durable timer the server
 * skips, the expiry is attempted only once the server's clock has passed the deadline, and an
 * early answer (`not_due`) makes the run wait again. The in-process engine runs the same
 * definition in test/http/requests.test.ts and test/workflows/requests-expiry.test.ts.
 */
const testServer = timeSkippingServer('the request expiry workflow');

const DAY = 86_400_000;

testServer.describe('request expiry workflow on the time-skipping test server', () => {
  const env = useTimeSkippingEnv();

  async function run(expiresAt: string, expire: (calls: number[]) => Promise<RequestExpiryStep>) {
    const calls: number[] = [];
    const activities: Record<keyof RequestExpiryActivities, (...args: unknown[]) => Promise<unknown>> = {
      expireRequest: async () => {
        calls.push(Context.current().info.currentAttemptScheduledTimestampMs);
        return expire(calls);
      },
    };
    const requestId = crypto.randomUUID();
    const outcome = await runOnTimeSkipping<typeof requestExpiryWorkflow>(env(), {
      type: REQUEST_EXPIRY_WORKFLOW_TYPE,
      workflowId: `${REQUEST_EXPIRY_WORKFLOW_TYPE}-${expiryRunId(requestId, expiresAt)}`,
      args: [expiryRunId(requestId, expiresAt), { request_id: requestId, expires_at: expiresAt }],
      activities,
    });
    return { outcome, calls };
  }

  it('sleeps until expires_at (days away), asks again when told it is early, then records the expiry', async () => {
    const deadline = Date.now() + 10 * DAY;
    const expiresAt = new Date(deadline).toISOString();
    const { outcome, calls } = await run(expiresAt, async (calls) => (calls.length === 1 ? { outcome: 'not_due', dueAt: deadline + 60_000 } : { outcome: 'expired' }));
    expect(outcome).toBe('expired');
    expect(calls).toHaveLength(2);
    expect(calls[0]!).toBeGreaterThanOrEqual(deadline);
    expect(calls[1]!).toBeGreaterThanOrEqual(deadline + 60_000);
  }, 180_000);

  it('ends when the deadline moved or the request was closed', async () => {
    const deadline = Date.now() + DAY;
    const { outcome, calls } = await run(new Date(deadline).toISOString(), async () => ({ outcome: 'superseded' }));
    expect(outcome).toBe('superseded');
    expect(calls).toHaveLength(1);
    expect(calls[0]!).toBeGreaterThanOrEqual(deadline);
  }, 180_000);
});
