import crypto from 'node:crypto';
import { Context } from '@temporalio/activity';
import { expect, it } from 'vitest';
import type { anchorBatchWorkflow } from '../../workflows/index.js';
import { ANCHOR_BATCH_WORKFLOW_TYPE, anchorRunId, type AnchorBatchActivities, type SealedAnchorBatch, type SealStep, type TimestampOutcome } from '../../workflows/anchors/workflow.js';
import { runOnTimeSkipping, timeSkippingServer, useTimeSkippingEnv } from '../support/timeskip.js';

/**
 * The anchor batch workflow (issue 25, must-work 2) on Temporal's time-skipping test server, with
 * scripted activities: a batch not yet due makes the run sleep on a durable timer until the time
 * the activity named (minutes away, skipped by the server), then the sealed batch is recorded once
 * and timestamped; a timestamp authority that fails every attempt (its retries' back-off skipped
 * too) ends in the failure being recorded, the batch staying sealed; a batch another run recorded
 * is not recorded again. The in-process engine runs the same definition with the real activities
 * in test/anchors/anchors.test.ts.
 */
const testServer = timeSkippingServer('the anchor batch workflow');

const MINUTE = 60_000;
const batch: SealedAnchorBatch = {
  batch_id: '1',
  sealed_at: new Date().toISOString(),
  root: 'a'.repeat(64),
  tree_size: 1,
  records: [{ record: { verification_id: crypto.randomUUID() }, record_hash: 'b'.repeat(64) }],
  signature: { algorithm: 'ES256', value: 'c2ln', signed: '{}', certificate_chain: [] },
};

testServer.describe('anchor batch workflow on the time-skipping test server', () => {
  const env = useTimeSkippingEnv();

  async function run(script: { seal: (calls: number) => SealStep; timestamp: () => Promise<TimestampOutcome> }) {
    const calls: Record<keyof AnchorBatchActivities, { at: number; args: unknown[] }[]> = { sealAnchorBatch: [], recordAnchorBatch: [], timestampAnchorBatch: [], recordAnchorTimestampFailure: [] };
    const log = (name: keyof AnchorBatchActivities, args: unknown[]) => calls[name].push({ at: Context.current().info.currentAttemptScheduledTimestampMs, args });
    const activities: Record<keyof AnchorBatchActivities, (...args: unknown[]) => Promise<unknown>> = {
      sealAnchorBatch: async (...args) => (log('sealAnchorBatch', args), script.seal(calls.sealAnchorBatch.length)),
      recordAnchorBatch: async (...args) => void log('recordAnchorBatch', args),
      timestampAnchorBatch: async (...args) => (log('timestampAnchorBatch', args), script.timestamp()),
      recordAnchorTimestampFailure: async (...args) => void log('recordAnchorTimestampFailure', args),
    };
    const id = anchorRunId('1', crypto.randomUUID());
    const outcome = await runOnTimeSkipping<typeof anchorBatchWorkflow>(env(), {
      type: ANCHOR_BATCH_WORKFLOW_TYPE,
      workflowId: `${ANCHOR_BATCH_WORKFLOW_TYPE}-${id}`,
      args: [id, { batch_id: '1' }],
      activities,
    });
    return { outcome, calls };
  }

  it('sleeps until the batch is due (minutes away), records it once and timestamps it', async () => {
    const dueAt = Date.now() + 5 * MINUTE;
    const { outcome, calls } = await run({
      seal: (n) => (n === 1 ? { outcome: 'not_due', recheckAt: dueAt } : { outcome: 'due', batch }),
      timestamp: async () => 'granted',
    });
    expect(outcome).toBe('sealed');
    expect(calls.sealAnchorBatch).toHaveLength(2);
    expect(calls.sealAnchorBatch[1]!.at).toBeGreaterThanOrEqual(dueAt);
    expect(calls.recordAnchorBatch.map((c) => c.args)).toEqual([[batch]]);
    expect(calls.timestampAnchorBatch.map((c) => c.args)).toEqual([['1']]);
    expect(calls.recordAnchorTimestampFailure).toEqual([]);
  }, 180_000);

  it('records the timestamp failure after the last attempt; the batch stays recorded', async () => {
    const { outcome, calls } = await run({
      seal: () => ({ outcome: 'due', batch }),
      timestamp: async () => {
        throw new Error('The timestamp authority answered HTTP 503.');
      },
    });
    expect(outcome).toBe('sealed');
    expect(calls.recordAnchorBatch).toHaveLength(1);
    expect(calls.timestampAnchorBatch).toHaveLength(6);
    expect(calls.recordAnchorTimestampFailure).toHaveLength(1);
    expect(calls.recordAnchorTimestampFailure[0]!.args[0]).toBe('1');
    expect(String(calls.recordAnchorTimestampFailure[0]!.args[1])).toContain('HTTP 503');
  }, 180_000);

  it('records nothing again for a batch another run recorded, and ends when nothing waits', async () => {
    const recorded = await run({ seal: () => ({ outcome: 'recorded' }), timestamp: async () => 'granted' });
    expect(recorded.outcome).toBe('sealed');
    expect(recorded.calls.recordAnchorBatch).toEqual([]);
    expect(recorded.calls.timestampAnchorBatch).toHaveLength(1);
    const empty = await run({ seal: () => ({ outcome: 'empty' }), timestamp: async () => 'granted' });
    expect(empty.outcome).toBe('empty');
    expect(empty.calls.timestampAnchorBatch).toEqual([]);
  }, 180_000);
});
