import fs from 'node:fs';
import path from 'node:path';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InProcessWorkflowEngine } from '../../src/adapters/workflows/inprocess/engine.js';
import { registerWorkflow } from '../../src/core/es/workflow.js';
import { createRetentionSteps } from '../../src/features/verifications/retention.js';
import { createVerificationActivities, createVerificationWorkflowActivities } from '../../src/features/verifications/activities.js';
import { AnalysisPool, AnalysisServiceFault } from '../../src/features/verifications/analysis-pool.js';
import { SERVICE_FAULT_REASON, verificationWorkflow } from '../../workflows/verifications/workflow.js';
import { databaseTargets } from '../support/databases.js';
import { client, registerAccount, startTestService, type TestService } from '../support/service.js';

/**
 * A decoder that makes no progress (what a busy machine did to genuine pairs, issue 21) is the
 * service's fault: the analysis step is retried with backoff, and if the stall persists the
 * verification fails with a service-fault reason that does not call the file corrupt, and its
 * metering is released. The service runs for real (uploads over its socket, metering, the
 * store); its own engine is stopped, and the verification workflow runs on a second in-process
 * engine whose analysis pool stalls a set number of times before analysing for real, as a
 * decoder stall reaches the workflow (AnalysisPool turns the thread's stalled-decoder answer
 * into an AnalysisServiceFault).
 */
const fixtures = path.resolve(import.meta.dirname, '../../../shared/fixtures');
const pairJpeg = 'pairs/canon_eos_30d_cr2/IMG_5952.camera-preview.jpg';
const pairRaw = 'pairs/canon_eos_30d_cr2/IMG_5952.CR2';
const fixture = (file: string) => new Uint8Array(fs.readFileSync(path.join(fixtures, file)));

for (const target of databaseTargets) {
  describe(`a stalled RAW decoder on ${target.name}`, () => {
    let t: TestService;
    let call: ReturnType<typeof client>;
    let engine: InProcessWorkflowEngine;
    let steps: ReturnType<typeof createVerificationActivities>;
    const realPool = new AnalysisPool(1, { idleMs: 1_000 });
    /** Analyses that stall before the pool analyses for real; attempts seen. */
    let stallsLeft = 0;
    let attempts = 0;

    beforeAll(async () => {
      t = await startTestService(target);
      call = client(t.url);
      await t.service.deps.workflows.stop();
      const deps = t.service.deps;
      const log = pino({ level: 'silent' });
      const stallingPool = {
        async analyze(job: Parameters<AnalysisPool['analyze']>[0], signal?: AbortSignal) {
          attempts++;
          if (stallsLeft > 0) {
            stallsLeft--;
            throw new AnalysisServiceFault('DecodeStalledError: RAW decoder made no progress for 60000 ms');
          }
          return realPool.analyze(job, signal);
        },
      } as unknown as AnalysisPool;
      steps = createVerificationActivities({
        store: deps.store,
        blobs: deps.blobs,
        log,
        now: deps.now,
        processingRegion: deps.config.PROCESSING_REGION,
        serviceName: deps.config.SERVICE_NAME,
        pipelineBuild: deps.pipelineBuild,
        trust: deps.trust,
        signer: deps.signer,
        analysisPool: stallingPool,
        retention: createRetentionSteps({ store: deps.store, blobs: deps.blobs, log, now: deps.now, config: deps.config }),
      });
      engine = new InProcessWorkflowEngine([registerWorkflow(verificationWorkflow, createVerificationWorkflowActivities(steps, log))], deps.knex, log, { sweepMs: 3_600_000 });
    }, 120_000);

    afterAll(async () => {
      await engine?.stop();
      await realPool.close();
      await t?.stop();
    }, 120_000);

    /** Uploads the 30D pair on a fresh account (metered; no workflow runs it). */
    async function uploadPair() {
      const owner = await registerAccount(call);
      const form = new FormData();
      form.append('image', new Blob([fixture(pairJpeg)]), 'IMG_5952.jpg');
      form.append('raw', new Blob([fixture(pairRaw)]), 'IMG_5952.CR2');
      const created = await fetch(`${t.url}/v1/verifications/`, { method: 'POST', headers: { authorization: `Bearer ${owner.token}` }, body: form });
      expect(created.status).toBe(201);
      const { id } = (await created.json()) as { id: string };
      return { owner, id };
    }
    const usageOf = async (owner: Awaited<ReturnType<typeof registerAccount>>) => (await call('GET', `/v1/accounts/${owner.account.id}/usage`, { token: owner.token })).body.included_used as number;

    /** Uploads the 30D pair on a fresh account, runs its workflow on the test engine, and returns the verification and the account's usage. */
    async function verifyPair(stalls: number) {
      stallsLeft = stalls;
      attempts = 0;
      const { owner, id } = await uploadPair();
      await engine.start(verificationWorkflow.type, id, {});
      await engine.idle();
      await t.settled();
      const verification = (await call('GET', `/v1/verifications/${id}`, { token: owner.token })).body;
      const usage = (await call('GET', `/v1/accounts/${owner.account.id}/usage`, { token: owner.token })).body;
      return { verification, usage };
    }

    it('the metering of a failure is released by its recorded fault (VerificationFailed.fault), not by the words of its reason', async () => {
      const byService = await uploadPair();
      const byInput = await uploadPair();
      await t.settled();
      expect(await usageOf(byService.owner)).toBe(1);
      await steps.fail(byService.id, byService.owner.account.id, 'The service failed in words no earlier version used.', 'service');
      await steps.fail(byInput.id, byInput.owner.account.id, SERVICE_FAULT_REASON, 'input');
      await t.settled();
      const faults = async (id: string) => (await t.service.deps.store.readStream(`verification-${id}`)).filter((e) => e.type === 'VerificationFailed').map((e) => e.data.fault);
      expect(await faults(byService.id)).toEqual(['service']);
      expect(await faults(byInput.id)).toEqual(['input']);
      expect(await usageOf(byService.owner)).toBe(0);
      expect(await usageOf(byInput.owner)).toBe(1);
    }, 300_000);

    it('a stall that passes is retried, and the pair completes with its true grade, metered once', async () => {
      const { verification, usage } = await verifyPair(2);
      expect(attempts).toBe(3);
      expect(verification).toMatchObject({ status: 'completed', assurance_level: 'verified', result: true });
      expect(usage.included_used).toBe(1);
    }, 600_000);

    it('a stall that persists fails the verification as a service fault: retried to the policy, unmetered, the file not called corrupt', async () => {
      const { verification, usage } = await verifyPair(1_000);
      expect(attempts).toBe(verificationWorkflow.activities.analyzeAndGrade.retry.maximumAttempts);
      expect(verification.status).toBe('failed');
      expect(verification.failure_reason).toBe(SERVICE_FAULT_REASON);
      expect(verification.failure_reason).not.toMatch(/corrupt/i);
      expect(verification.failure_reason).toMatch(/upload the pair again/);
      expect(usage.included_used).toBe(0);
    }, 600_000);
  });
}
