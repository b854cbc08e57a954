import { Context } from '@temporalio/activity';
import { expect, it } from 'vitest';
import type { uploadExpiryWorkflow } from '../../workflows/index.js';
import { UPLOAD_EXPIRY_GRACE_MS } from '../../workflows/uploads/policy.js';
import { UPLOAD_EXPIRY_WORKFLOW_TYPE, type ExpiryStep } from '../../workflows/uploads/workflow.js';
import { captureHistories, runOnTimeSkipping, timeSkippingServer, useTimeSkippingEnv } from '../support/timeskip.js';

/**
 * The upload expiry workflow on Temporal's time-skipping test server, with a scripted activity:
 * its hour-and-a-quarter wait is a durable timer the server skips, and the expiry is attempted
 * only once the server's clock has passed the id's expiry and the grace.
 */
const testServer = timeSkippingServer('the upload expiry workflow');

testServer.describe('upload expiry workflow on the time-skipping test server', () => {
  const env = useTimeSkippingEnv();

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
    const outcome = await runOnTimeSkipping<typeof uploadExpiryWorkflow>(env(), {
      type: UPLOAD_EXPIRY_WORKFLOW_TYPE,
      workflowId: `${UPLOAD_EXPIRY_WORKFLOW_TYPE}-n1`,
      args: ['n1', { expires_at: expiresAt.toISOString() }],
      activities,
      captureAs: captureHistories ? 'upload-expired' : undefined,
    });
    expect(outcome).toBe('expired');
    expect(calls.map((c) => c.nonce)).toEqual(['n1', 'n1']);
    expect(calls[0]!.at).toBeGreaterThanOrEqual(deletableAt);
    expect(calls[1]!.at).toBeGreaterThanOrEqual(deletableAt + 5 * 60_000);
  }, 180_000);
});
