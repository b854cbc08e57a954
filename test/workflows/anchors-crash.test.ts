import crypto from 'node:crypto';
import { pino } from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/core/config.js';
import { appendFacts } from '../../src/core/es/decider.js';
import type { StoredEvent } from '../../src/core/es/event-store.js';
import { merkleRoot, recordHash, type AnchorRecord } from '../../src/core/audit/merkle.js';
import { verificationEvents, verificationStream, type VerificationEvent } from '../../src/features/verifications/events.js';
import { openStores } from '../../src/service.js';
import { ANCHOR_BATCH_WORKFLOW_TYPE } from '../../workflows/anchors/workflow.js';
import { startLocalTsa } from '../anchors/local-tsa.js';
import { crashWorld, sleep } from '../support/crash.js';
import { databaseTargets } from '../support/databases.js';
import { client, registerAccount, uploadImage } from '../support/service.js';

/**
 * SIGKILL at every step of the anchor batch workflow (issue 25, must-work 2), on a service that
 * runs as its own process on a database and data directory that outlive it, with a real local
 * RFC 3161 authority. One image is verified once; each kill then gets a full batch of its own
 * (ANCHOR_BATCH_SIZE=2: two copies of that verification, its events recorded again under new ids),
 * and a process started with the failpoint (`CRASH_AT=anchorBatch.<step>:before|after`) must kill
 * itself there; the next process starts on what it left. The timestamp failure's step is reached
 * with the authority refusing every attempt. After the last restart: batches are numbered 1..n
 * without a gap, each sealed once; every copy is in exactly one batch (none lost, none in two);
 * each root is the Merkle root of its records' hashes; each batch has at most one timestamp
 * outcome; no event twice. test/workflows/crash-points.test.ts names this file for these steps.
 */
const STEPS = ['sealAnchorBatch', 'recordAnchorBatch', 'timestampAnchorBatch', 'recordAnchorTimestampFailure'];

for (const target of databaseTargets) describe(`anchor batches killed at every step, on ${target.name}`, () => {
  // Declared first, so it runs after the world's: once no process calls the authority any more.
  let closeTsa = async () => {};
  afterAll(async () => closeTsa());
  const world = crashWorld(target, 'pv-anchor-crash-');

  it('seals every record once, in one batch, after every kill', async () => {
    const tsa = await startLocalTsa();
    closeTsa = () => tsa.close();
    // Only full batches are sealed while the failpoints are visited (the interval is an hour).
    const env = { ...(await world.env()), ANCHOR_BATCH_SIZE: '2', ANCHOR_INTERVAL_SECONDS: '3600', ANCHOR_TSA_URL: tsa.url, WORKFLOW_SWEEP_MS: '200' };
    const base = `http://127.0.0.1:${env.PORT}`;
    const call = client(base);
    const config = loadConfig({ DATA_DIR: env.DATA_DIR, ...(env.DATABASE_URL ? { DATABASE_URL: env.DATABASE_URL } : {}) });

    const verifying = await world.launch(env);
    const { token, account } = await registerAccount(call);
    const original = await uploadImage(base, token);
    let status = '';
    for (let i = 0; i < 3000 && status !== 'completed'; i++) {
      status = (await call('GET', `/v1/verifications/${original}`, { token })).body.status;
      if (status !== 'completed') await sleep(200);
    }
    expect(status).toBe('completed');
    await world.stop(verifying, 'SIGTERM');

    const copies: string[] = [];
    /** Two completed copies of the verification (a full batch), recorded while no service holds the database. */
    const fullBatch = async () => {
      const { db, store, projections } = await openStores(config, pino({ level: 'silent' }));
      try {
        const events = await store.readStream(verificationStream(original));
        for (let n = 0; n < 2; n++) {
          const id = crypto.randomUUID();
          const copied = events.map((e: StoredEvent) => {
            const data = { ...e.data } as Record<string, unknown>;
            if (e.type === 'VerificationQueued') data.verification_id = id;
            if (e.type === 'AnalysisRecorded') data.result_id = crypto.randomUUID();
            return { type: e.type, data } as VerificationEvent;
          });
          await appendFacts(store, verificationStream(id), verificationEvents, copied, { accountId: account.id, actor: { type: 'system', id: 'copy' }, correlationId: id, causationId: id, processingRegion: config.PROCESSING_REGION, now: new Date() });
          copies.push(id);
        }
      } finally {
        await projections.stop();
        await store.close();
        await db.close();
      }
    };

    const points = STEPS.flatMap((step) => [`${ANCHOR_BATCH_WORKFLOW_TYPE}.${step}:before`, `${ANCHOR_BATCH_WORKFLOW_TYPE}.${step}:after`]);
    const unreached: string[] = [];
    for (const point of points) {
      // The failure is recorded only after every attempt failed (about 2.5 minutes of back-off).
      tsa.refuse = point.includes('.recordAnchorTimestampFailure:');
      await fullBatch();
      const child = await world.launch({ ...env, CRASH_AT: point }, { mayDie: true });
      if (!(await world.reachedFailpoint(child, 5 * 60_000))) unreached.push(point);
    }
    expect(unreached, 'failpoints no process reached').toEqual([]);

    // The last restart, the authority answering, a short interval: everything waiting is sealed.
    tsa.refuse = false;
    const last = await world.launch({ ...env, ANCHOR_INTERVAL_SECONDS: '1' });
    for (const id of copies) {
      let anchored = false;
      for (let i = 0; i < 1500 && !anchored; i++) {
        anchored = (await call('GET', `/v1/verifications/${id}`, { token })).body.anchored_in?.length > 0;
        if (!anchored) await sleep(200);
      }
      expect(anchored, `copy ${id} anchored`).toBe(true);
    }
    await world.stop(last, 'SIGTERM');

    const { db, store, projections } = await openStores(config, pino({ level: 'silent' }));
    try {
      const all = await store.readAll({ after: 0n, limit: 1_000_000 });
      expect(new Set(all.map((e) => e.id)).size, 'an event recorded twice').toBe(all.length);
      const anchorEvents = all.filter((e) => e.stream.startsWith('anchor-'));
      const sealed = anchorEvents.filter((e) => e.type === 'AnchorBatchSealed');
      const numbers = sealed.map((e) => Number(e.stream.slice('anchor-'.length))).sort((a, b) => a - b);
      expect(numbers, 'batches numbered without a gap, each sealed once').toEqual(numbers.map((_, i) => i + 1));
      const where = new Map<string, string[]>();
      for (const event of sealed) {
        const data = event.data as { batch_id: string; root: string; records: { record: AnchorRecord; record_hash: string }[] };
        expect(event.stream).toBe(`anchor-${data.batch_id}`);
        for (const { record, record_hash } of data.records) {
          expect(recordHash(record)).toBe(record_hash);
          where.set(record.verification_id, [...(where.get(record.verification_id) ?? []), data.batch_id]);
        }
        expect(merkleRoot(data.records.map((r) => r.record_hash))).toBe(data.root);
        const outcomes = anchorEvents.filter((e) => e.stream === event.stream && e.type !== 'AnchorBatchSealed');
        expect(outcomes.length, `timestamp outcomes of batch ${data.batch_id}`).toBeLessThanOrEqual(1);
      }
      for (const id of [original, ...copies]) expect(where.get(id), `batches of ${id}`).toHaveLength(1);
      expect(anchorEvents.some((e) => e.type === 'AnchorTimestampFailed')).toBe(true);
      expect(anchorEvents.some((e) => e.type === 'AnchorBatchTimestamped')).toBe(true);
      console.info(`anchor crash on ${target.name}: ${points.length} failpoints, ${sealed.length} batches, ${copies.length + 1} records`);
    } finally {
      await projections.stop();
      await store.close();
      await db.close();
    }
  }, 40 * 60_000);
});
