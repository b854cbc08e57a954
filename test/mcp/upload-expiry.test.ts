import fs from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/core/config.js';
import { startService } from '../../src/service.js';
import { createUploadActivities } from '../../src/features/uploads/activities.js';
import { UPLOAD_EXPIRY_GRACE_MS } from '../../workflows/uploads/policy.js';
import { readUploadId } from '../../src/features/uploads/tokens.js';
import { UPLOAD_EXPIRY_WORKFLOW_TYPE } from '../../workflows/uploads/workflow.js';
import { SESSIONS_OUTLIVE_CLOCK, SkewedClock } from '../support/clock.js';
import { databaseTargets } from '../support/databases.js';
import { callTool, connectMcp, type ToolOutcome } from '../support/mcp.js';
import { waitFor } from '../support/poll.js';
import { client, registerAccount, startTestService, type TestService } from '../support/service.js';

/**
 * Unused uploads are deleted after their id expired and a grace period passed, through the
 * service's own durable workflow engine; the service's clock is moved by hand (SkewedClock), the
 * engine looks for due runs every 200 ms. Everything is observed from outside: the files under
 * DATA_DIR, the audit history over HTTP, the tools' answers over MCP.
 */
const fixtures = path.resolve(import.meta.dirname, '../../../shared/fixtures');
const webp = fs.readFileSync(path.join(fixtures, 'images/rs_sample1.webp'));
const HOUR = 3600_000;

function expectExpired(outcome: ToolOutcome) {
  expect(outcome.result.isError, JSON.stringify(outcome.result)).toBe(true);
  expect(outcome.error).toMatchObject({ error_code: 'UPLOAD_EXPIRED', message: expect.any(String), suggestion: expect.stringContaining('create_upload') });
}

for (const target of databaseTargets) {
  describe(`expiry of unused uploads on ${target.name}`, () => {
    const clock = new SkewedClock();
    let t: TestService;
    /** The nonce an upload id names (its stream is upload-<nonce>, its file blobs/uploads/<nonce>), as the service unseals it (D-090). */
    const nonceOf = (uploadId: string) => readUploadId(t.service.deps.urlSigner, uploadId)!.nonce;
    let call: ReturnType<typeof client>;
    let owner: Awaited<ReturnType<typeof registerAccount>>;
    let apiKey: string;
    let agent: Client;

    /** Whether an upload's own blob is still stored (uploads/<nonce>), in whichever store the service uses. */
    const uploadStored = (uploadId: string) => t.service.deps.blobs.exists(`uploads/${nonceOf(uploadId)}`);
    const history = async (uploadId: string) => {
      const res = await call('GET', `/v1/audit/streams/upload-${nonceOf(uploadId)}`, { token: owner.token });
      expect(res.status).toBe(200);
      return res.body.events as { type: string; data: Record<string, unknown>; metadata: { account_id: string; actor: { type: string; id: string } } }[];
    };

    /** A ticket from create_upload with its file PUT to the upload URL (on the current address of the service). */
    async function uploaded(filename: string) {
      const ticket = (await callTool(agent, 'create_upload', { filename })).output as { upload_id: string; upload_url: string; expires_at: string };
      const put = await fetch(`${t.url}/uploads/${ticket.upload_id}`, { method: 'PUT', headers: { 'content-type': 'application/octet-stream' }, body: new Uint8Array(webp) });
      expect(put.status).toBe(200);
      expect(await uploadStored(ticket.upload_id)).toBe(true);
      return ticket;
    }

    beforeAll(async () => {
      t = await startTestService(target, SESSIONS_OUTLIVE_CLOCK, { clock, workflowSweepMs: 200, persistent: true });
      call = client(t.url);
      owner = await registerAccount(call);
      const key = await call('POST', '/v1/apikeys/', { token: owner.token, json: { account_id: owner.account.id, scope: 'full' } });
      expect(key.status).toBe(201);
      apiKey = key.body.raw_key;
      agent = await connectMcp(t.url, apiKey);
    }, 120_000);
    afterAll(async () => {
      await agent?.close();
      await t?.stop();
    });

    it('deletes an unused upload’s file once its id expired and the grace passed, records it, and keeps what a verification used', async () => {
      const unused = await uploaded('unused.webp');
      const used = await uploaded('used.webp');
      const verified = await callTool(agent, 'verify_image', { image: { upload_id: used.upload_id }, wait_seconds: 0 });
      expect(verified.result.isError, JSON.stringify(verified.result)).toBeFalsy();
      const verificationId = verified.output.verification_id as string;
      await t.settled();
      const queued = (await t.service.deps.store.readStream(`verification-${verificationId}`))[0]!;
      const verificationKey = (queued.data.image as { blob_key: string }).blob_key;
      expect(await t.service.deps.blobs.exists(verificationKey)).toBe(true);
      expect(await uploadStored(used.upload_id), 'a used upload’s own file goes once the verification has its copy').toBe(false);

      // Expired, within the grace: the id is refused, the file not yet deleted (the engine looked several times meanwhile).
      clock.advance(HOUR + 60_000);
      expectExpired(await callTool(agent, 'verify_image', { image: { upload_id: unused.upload_id } }));
      await sleep(1_500);
      expect(await uploadStored(unused.upload_id)).toBe(true);
      expect((await history(unused.upload_id)).map((e) => e.type)).toEqual(['UploadReceived']);

      clock.advance(UPLOAD_EXPIRY_GRACE_MS);
      await waitFor(async () => !(await uploadStored(unused.upload_id)), 'the unused upload’s file to be deleted');
      await t.settled();
      const events = await history(unused.upload_id);
      expect(events.map((e) => e.type)).toEqual(['UploadReceived', 'UploadExpired']);
      expect(events[0]!.data).toMatchObject({ filename: 'unused.webp', size: webp.length, expires_at: unused.expires_at });
      expect(events[1]!.data).toMatchObject({ blob_key: `uploads/${nonceOf(unused.upload_id)}`, expires_at: unused.expires_at });
      expect(events[1]!.metadata).toMatchObject({ account_id: owner.account.id, actor: { type: 'system', id: 'upload-expiry' } });

      // The used upload: its use recorded, never expired; the verification's file untouched and served.
      await waitFor(async () => (await t.service.deps.knex('workflow_runs').where({ type: UPLOAD_EXPIRY_WORKFLOW_TYPE, id: nonceOf(used.upload_id) }).first())?.status === 'completed', 'the used upload’s expiry run to finish');
      const usedEvents = await history(used.upload_id);
      expect(usedEvents.map((e) => e.type)).toEqual(['UploadReceived', 'UploadUsed']);
      expect(usedEvents[1]!.data.verification_id).toBe(verificationId);
      expect(await t.service.deps.blobs.exists(verificationKey)).toBe(true);
      const image = await call('GET', `/v1/verifications/${verificationId}/image`, { token: owner.token });
      expect([302, 307]).toContain(image.status);
      const served = await fetch(new URL(image.headers.get('location')!, t.url));
      expect(served.status).toBe(200);
      expect(Buffer.from(await served.arrayBuffer()).equals(webp)).toBe(true);

      // Using the swept upload, or sending its file again, is the expired upload's 410.
      expectExpired(await callTool(agent, 'verify_image', { image: { upload_id: unused.upload_id } }));
      const late = await fetch(`${t.url}/uploads/${unused.upload_id}`, { method: 'PUT', body: new Uint8Array(webp) });
      expect(late.status).toBe(410);
      expect((await late.json()).detail).toMatchObject({ error_code: 'UPLOAD_EXPIRED', suggestion: expect.any(String) });
      expect((await history(unused.upload_id)).map((e) => e.type)).toEqual(['UploadReceived', 'UploadExpired']);
    }, 300_000);

    it('does not lose an expiry over a restart, whether its run was recorded or only its upload', async () => {
      const waiting = await uploaded('waiting.webp');
      const unstarted = await uploaded('unstarted.webp');
      // As if the process died between UploadReceived and starting the run: only the read model knows the upload.
      const runOf = (ticket: { upload_id: string }) => t.service.deps.knex('workflow_runs').where({ type: UPLOAD_EXPIRY_WORKFLOW_TYPE, id: nonceOf(ticket.upload_id) });
      expect(await runOf(unstarted).first()).toMatchObject({ status: 'running' });
      await runOf(unstarted).delete();
      expect(await runOf(unstarted).first()).toBeUndefined();
      await agent.close();
      await t.restart();
      call = client(t.url);
      agent = await connectMcp(t.url, apiKey);
      expect(await uploadStored(waiting.upload_id)).toBe(true);
      expect(await uploadStored(unstarted.upload_id)).toBe(true);

      clock.advance(HOUR + UPLOAD_EXPIRY_GRACE_MS + 1_000);
      for (const ticket of [waiting, unstarted]) {
        await waitFor(async () => !(await uploadStored(ticket.upload_id)), `the file of ${ticket.upload_id.slice(0, 12)}… to be deleted after the restart`);
      }
      await t.settled();
      for (const ticket of [waiting, unstarted]) {
        expect((await history(ticket.upload_id)).map((e) => e.type)).toEqual(['UploadReceived', 'UploadExpired']);
        expectExpired(await callTool(agent, 'verify_image', { image: { upload_id: ticket.upload_id } }));
      }
    }, 300_000);

    // Several processes share PostgreSQL only (PGlite is one process's); databases.ts reports when it is absent.
    if (target.name === 'postgres') it('expires each upload once with two service processes on one database', async () => {
      // A second process on the same database and blob store. Without Temporal only one process per
      // database runs the workflow engine (a second ROLE=all is refused: D-205), so the
      // second is an API process; it runs no engine, and the step itself is raced below.
      // The same blob store too: the first's S3 bucket when it has one (BLOB_STORE=s3), else its data dir.
      const blobSettings = Object.fromEntries(Object.entries(t.service.deps.config).filter(([name, value]) => name.startsWith('S3_') && value !== undefined).map(([name, value]) => [name, String(value)]));
      const config = loadConfig({ PORT: '0', HOST: '127.0.0.1', DATA_DIR: t.dataDir, DATABASE_URL: t.service.deps.config.DATABASE_URL!, PASSWORD_HASH_COST: '10', LOG_LEVEL: 'silent', ROLE: 'api', ...blobSettings });
      const second = await startService(config, { logger: pino({ level: 'silent' }), clock, workflowSweepMs: 150 });
      try {
        const tickets = [];
        for (let i = 0; i < 4; i++) tickets.push(await uploaded(`twice-${i}.webp`));
        clock.advance(HOUR + UPLOAD_EXPIRY_GRACE_MS + 1_000);
        for (const ticket of tickets) await waitFor(async () => !(await uploadStored(ticket.upload_id)), 'the files to be deleted');
        await t.settled();
        await second.deps.workflows.idle();
        for (const ticket of tickets) expect((await history(ticket.upload_id)).map((e) => e.type)).toEqual(['UploadReceived', 'UploadExpired']);

        // The step itself, six at once on one due upload (beside both engines): one UploadExpired.
        const raced = await uploaded('raced.webp');
        clock.advance(HOUR + UPLOAD_EXPIRY_GRACE_MS + 1_000);
        const { deps } = t.service;
        const activities = createUploadActivities({ store: deps.store, blobs: deps.blobs, now: () => clock.now(), config: deps.config });
        const context = { signal: new AbortController().signal, attempt: 1, heartbeat: () => undefined };
        const steps = await Promise.all(Array.from({ length: 6 }, () => activities.expireUpload(context, nonceOf(raced.upload_id))));
        expect(steps).toEqual(Array(6).fill({ outcome: 'expired' }));
        expect(await uploadStored(raced.upload_id)).toBe(false);
        await t.settled();
        expect((await history(raced.upload_id)).map((e) => e.type)).toEqual(['UploadReceived', 'UploadExpired']);
      } finally {
        await second.stop();
      }
    }, 300_000);
  });
}
