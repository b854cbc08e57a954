import { spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import sharp from 'sharp';
import { beforeAll, describe, expect, it } from 'vitest';
import { appendFacts } from '../../src/core/es/decider.js';
import { jsonColumn } from '../../src/core/es/json.js';
import { AnalysisPool } from '../../src/features/verifications/analysis-pool.js';
import { createRetentionSteps } from '../../src/features/verifications/retention.js';
import { buildPsdExport, renderInThread } from '../../src/features/psd-export/psd-file.js';
import { psdLayerNames } from '../../src/features/psd-export/psd-document.js';
import { findVerification, imageOf, renditionsOf } from '../../src/features/verifications/index.js';
import { verificationEvents, verificationStream, type VerificationEvent } from '../../src/features/verifications/events.js';
import { SkewedClock } from '../support/clock.js';
import { databaseTargets } from '../support/databases.js';
import { callTool, connectMcp, keylessVerify } from '../support/mcp.js';
import { waitFor, waitForTerminal } from '../support/poll.js';
import { requires } from '../support/requires.js';
import { registerAccount } from '../support/service.js';
import { serviceSuite, type Call } from '../support/suite.js';

/**
 * Data kept no longer than needed (issue 25, must-work 6), through the service's in-process
 * engine with a clock moved by hand:
 * - a pair's RAW file leaves the blob store (DATA_DIR/blobs) once its verification completes,
 *   RawFileDiscarded in its audit history with the RAW's SHA-256; the record still shows the RAW's
 *   hash and metadata, and the PSD export is still built, from the full-size rendering kept
 *   (byte for byte the file the RAW itself gives), and read by psd-tools; RAW_RETENTION=keep keeps it;
 *   a pair analysed before the rendering was kept gets it, from its RAW, recorded with the discard;
 * - an anonymous verification's claim window closes on its durable timer at day 30: files
 *   deleted, ClaimWindowClosed recorded, a claim then answers 410 CLAIM_EXPIRED; one claimed at
 *   day 29 keeps everything, over a restart.
 * The timer's definition runs on Temporal in retention-timeskip.test.ts; kills at each step in
 * retention-crash.test.ts.
 */
const DAY = 86_400_000;
const fixtures = path.resolve(import.meta.dirname, '../../../shared/fixtures');
const pair = { raw: 'pairs/canon_eos_6d_dng/canon_eos_6d.dng', image: 'pairs/canon_eos_6d_dng/canon_eos_6d.preview.jpg' };
const webp = fs.readFileSync(path.join(fixtures, 'images/rs_sample1.webp'));
const reader = path.resolve(import.meta.dirname, '../psd/read-psd.py');
/** docs/psd-export.md: the calibrated threshold of the RAW layer's SSIM against the photo. */
const renditionSsimThreshold = 0.73;

const psdTools = requires(
  { server: 'psd-tools (Python, with numpy and Pillow)', available: spawnSync('python3', ['-c', 'import psd_tools, numpy, PIL'], { stdio: 'ignore' }).status === 0, how: 'pip install psd-tools' },
  'the PSD export of a pair whose RAW was discarded, read by psd-tools',
);

async function uploadPair(url: string, token: string): Promise<string> {
  const form = new FormData();
  form.append('image', await fs.openAsBlob(path.join(fixtures, pair.image)), path.basename(pair.image));
  form.append('raw', await fs.openAsBlob(path.join(fixtures, pair.raw)), path.basename(pair.raw));
  const response = await fetch(`${url}/v1/verifications/`, { method: 'POST', headers: { authorization: `Bearer ${token}` }, body: form });
  const body = await response.text();
  if (response.status !== 201) throw new Error(`pair upload answered ${response.status}: ${body}`);
  return (JSON.parse(body) as { id: string }).id;
}

const auditTypes = async (call: Call, token: string, id: string): Promise<string[]> =>
  ((await call('GET', `/v1/audit/streams/${verificationStream(id)}`, { token })).body.events as { type: string }[]).map((e) => e.type);

/** The verification's files as the blob store holds them on disk (FileBlobStore: DATA_DIR/blobs/<key>). */
const filesOnDisk = (dataDir: string, id: string): string[] => {
  const dir = path.join(dataDir, 'blobs', 'verifications', id);
  return fs.existsSync(dir) ? fs.readdirSync(dir).sort() : [];
};

for (const target of databaseTargets) {
  describe(`RAW retention on ${target.name} (in-process engine)`, () => {
    const { t, call, newAccount } = serviceSuite(target);
    const owner = newAccount();
    let id: string;
    let view: Record<string, any>;

    beforeAll(async () => {
      id = await uploadPair(t.url, owner.token);
      view = await waitForTerminal(call, owner.token, id);
    }, 900_000);

    it('discards the RAW file once the verification completes, as an event with its hash; the record keeps its hash and metadata', async () => {
      expect(view.status).toBe('completed');
      const rawSha256 = crypto.createHash('sha256').update(fs.readFileSync(path.join(fixtures, pair.raw))).digest('hex');
      await waitFor(async () => (await auditTypes(call, owner.token, id)).includes('RawFileDiscarded'), 'RawFileDiscarded');
      const events = (await call('GET', `/v1/audit/streams/${verificationStream(id)}`, { token: owner.token })).body.events as Record<string, any>[];
      const discarded = events.filter((e) => e.type === 'RawFileDiscarded');
      expect(discarded).toHaveLength(1);
      expect(discarded[0]).toMatchObject({ data: { sha256: rawSha256, blob_key: `verifications/${id}/raw.dng` }, metadata: { actor: { type: 'system', id: 'raw-retention' } } });
      // After the completion, in the same stream.
      expect(events.findIndex((e) => e.type === 'VerificationCompleted')).toBeLessThan(events.indexOf(discarded[0]!));
      // The blob store's files: the RAW gone; the image, the report's renditions and the full-size rendering kept.
      await waitFor(() => !filesOnDisk(t.dataDir, id).includes('raw.dng'), 'the RAW file to leave the disk');
      expect(filesOnDisk(t.dataDir, id)).toEqual(expect.arrayContaining(['image.jpeg', 'heatmap.png', 'raw_reference.png', 'raw_rendition.png', 'thumbnail.jpg']));
      expect(filesOnDisk(t.dataDir, id)).not.toContain('raw.dng');
      // The Verification says what it said.
      const after = (await call('GET', `/v1/verifications/${id}`, { token: owner.token })).body;
      expect(after.raw_photo_hash).toBe(`sha256:${rawSha256}`);
      expect(after.raw_metadata).toEqual(view.raw_metadata);
      expect(Object.keys(after.raw_metadata).length).toBeGreaterThan(0);
      expect(after.results).toEqual(view.results);
      expect(after.assurance_level).toBe(view.assurance_level);
    }, 300_000);

    psdTools.it('still builds the PSD export from the kept rendering: the same file the RAW gives, read by psd-tools', { timeout: 600_000 }, async () => {
      const row = (await findVerification(t.service.deps.knex, id))!;
      expect(row.raw_discarded_at).not.toBeNull();
      const built = await buildPsdExport(t.service.deps, id, new AbortController().signal);
      const file = await t.service.deps.blobs.read(built.blobKey);
      // The RAW layer from the RAW itself (the fixture: its file is gone from the service): the very same bytes.
      const renditions = renditionsOf(row);
      const job = {
        rawLayer: { kind: 'raw' as const, raw: new Uint8Array(fs.readFileSync(path.join(fixtures, pair.raw))) },
        image: await t.service.deps.blobs.read(imageOf(row).blob_key),
        heatmapPng: await t.service.deps.blobs.read(renditions.heatmap!.blob_key),
        imageToReference: (jsonColumn<Record<string, any>>(row.rendition_info) ?? {}).registration.imageToReference,
        facts: { verificationId: id, shortCode: row.short_code, assuranceLevel: row.assurance_level ?? 'unrated', name: row.name },
      };
      const fromRaw = await renderInThread(job, new AbortController().signal);
      const fromRawSha = crypto.createHash('sha256');
      for (const part of fromRaw.parts) fromRawSha.update(part);
      expect(built.sha256).toBe(fromRawSha.digest('hex'));

      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pv-retention-psd-'));
      try {
        const psdPath = path.join(dir, 'export.psd');
        const rgbPath = path.join(dir, 'photo.rgb');
        fs.writeFileSync(psdPath, file);
        fs.writeFileSync(rgbPath, await sharp(path.join(fixtures, pair.image)).rotate().toColourspace('srgb').removeAlpha().raw().toBuffer());
        const run = spawnSync('python3', [reader, psdPath, rgbPath, path.join(fixtures, pair.image)], { encoding: 'utf8', maxBuffer: 1 << 20 });
        expect(run.status, run.stderr).toBe(0);
        const psd = JSON.parse(run.stdout);
        expect(psd.layers.map((l: { name: string }) => l.name)).toEqual([psdLayerNames.photo, psdLayerNames.rendition, psdLayerNames.heatmap]);
        expect(psd.rendition_coverage).toBeGreaterThan(0.95);
        expect(psd.rendition_ssim).toBeGreaterThan(renditionSsimThreshold);
        expect(psd.shifted_rendition_ssim).toBeLessThan(renditionSsimThreshold);
      } finally {
        fs.rmSync(dir, { recursive: true, force: true });
      }
    });
  });

  describe(`RAW_RETENTION=keep on ${target.name}`, () => {
    const { t, call, newAccount } = serviceSuite(target, { RAW_RETENTION: 'keep' });
    const owner = newAccount();
    let keptId: string;

    it('keeps the RAW file of a completed verification, and records no discard', async () => {
      const id = await uploadPair(t.url, owner.token);
      expect((await waitForTerminal(call, owner.token, id)).status).toBe('completed');
      await t.settled();
      expect(filesOnDisk(t.dataDir, id)).toEqual(expect.arrayContaining(['raw.dng', 'raw_rendition.png']));
      expect(await auditTypes(call, owner.token, id)).not.toContain('RawFileDiscarded');
      keptId = id;
    }, 900_000);

    it('a registered pair analysed before the rendering was kept gets it, made from its RAW, before the RAW goes', async () => {
      // Such a pair's log: this one's events (same files) without its raw_rendition, under an id of its own.
      const oldId = crypto.randomUUID();
      const history = await t.service.deps.store.readStream(verificationStream(keptId));
      const events = history
        .filter((e) => !(e.type === 'RenditionStored' && e.data.kind === 'raw_rendition'))
        .map((e) => {
          if (e.type === 'VerificationQueued') return { type: e.type, data: { ...e.data, verification_id: oldId } };
          if (e.type === 'AnalysisRecorded') return { type: e.type, data: { ...e.data, result_id: crypto.randomUUID() } };
          return { type: e.type, data: e.data };
        }) as VerificationEvent[];
      const context = { accountId: owner.account.id, actor: { type: 'system' as const, id: 'seed' }, correlationId: oldId, causationId: oldId, processingRegion: 'eu', now: new Date() };
      const { position } = await appendFacts(t.service.deps.store, verificationStream(oldId), verificationEvents, events, context);
      expect(await t.service.deps.readModels.waitFor(position, 30_000)).toBe(true);
      const pool = new AnalysisPool(1);
      try {
        const steps = createRetentionSteps({
          store: t.service.deps.store,
          blobs: t.service.deps.blobs,
          log: t.service.deps.log,
          now: () => new Date(),
          config: { PROCESSING_REGION: 'eu', RAW_RETENTION: 'discard' },
          renderRaw: (raw, signal) => pool.renderRaw(raw, signal),
        });
        expect(await steps.discardRaw(oldId)).toBe('discarded');
      } finally {
        await pool.close();
      }
      const after = await t.service.deps.store.readStream(verificationStream(oldId));
      expect(after.slice(-2).map((e) => [e.type, e.data.kind ?? null])).toEqual([['RenditionStored', 'raw_rendition'], ['RawFileDiscarded', null]]);
      // The same rendering the analysis kept for the pair, byte for byte.
      expect(Buffer.compare(fs.readFileSync(path.join(t.dataDir, 'blobs', 'verifications', oldId, 'raw_rendition.png')), fs.readFileSync(path.join(t.dataDir, 'blobs', 'verifications', keptId, 'raw_rendition.png')))).toBe(0);
      expect(filesOnDisk(t.dataDir, keptId)).not.toContain('raw.dng'); // the shared RAW file
      await t.settled();
      const built = await buildPsdExport(t.service.deps, oldId, new AbortController().signal);
      expect(built.canvasWidth).toBeGreaterThan(0);
    }, 600_000);
  });

  describe(`the anonymous claim window on ${target.name} (in-process engine, moved clock)`, () => {
    const clock = new SkewedClock();
    const { t, call } = serviceSuite(target, {}, { clock, workflowSweepMs: 200, persistent: true });
    const verifications: { unclaimed: { id: string; anon: string }; claimed: { id: string; anon: string } } = {} as never;
    let account: Awaited<ReturnType<typeof registerAccount>>;

    const anonymousRead = async (id: string, anon: string) => {
      const agent = await connectMcp(t.url);
      try {
        return await callTool(agent, 'get_verification', { verification_id: id, anonymous_user_id: anon });
      } finally {
        await agent.close();
      }
    };
    const types = async (id: string) => (await t.service.deps.store.readStream(verificationStream(id))).map((e) => e.type);

    beforeAll(async () => {
      account = await registerAccount(call);
      const upload = async (files: Parameters<typeof keylessVerify>[1]) => {
        const outcome = await keylessVerify(t.url, files);
        expect(outcome.result.isError).toBeFalsy();
        return { id: outcome.output.verification_id as string, anon: outcome.output.anonymous_user_id as string };
      };
      // The unclaimed one is a pair: its RAW goes at completion, its image and renditions with its window.
      verifications.unclaimed = await upload({ image: fs.readFileSync(path.join(fixtures, pair.image)), raw: fs.readFileSync(path.join(fixtures, pair.raw)) });
      verifications.claimed = await upload({ image: webp });
      await waitFor(async () => (await types(verifications.unclaimed.id)).includes('RawFileDiscarded'), 'the anonymous pair to complete');
      await waitFor(async () => (await types(verifications.claimed.id)).includes('VerificationCompleted'), 'the anonymous image to complete');
      await t.settled();
    }, 900_000);

    it('a claim at day 29 keeps everything; at day 30 the unclaimed one loses its files (the record stays) and its claim answers 410', async () => {
      const { unclaimed, claimed } = verifications;
      const claimedFiles = filesOnDisk(t.dataDir, claimed.id);
      expect(claimedFiles.length).toBeGreaterThan(0);
      expect(filesOnDisk(t.dataDir, unclaimed.id)).toEqual(expect.arrayContaining(['image.jpeg', 'thumbnail.jpg', 'raw_rendition.png']));

      clock.advance(29 * DAY);
      const early = await call('POST', '/v1/verifications/claim', { token: account.token, json: { anonymous_user_id: claimed.anon } });
      expect(early.status).toBe(200);
      expect(early.body.verification_ids).toEqual([claimed.id]);

      // The timers wait on the clock over a restart (their wake time is the recorded window's end).
      await t.restart();
      clock.advance(DAY - 60_000);
      await sleep(1_500);
      expect(await types(unclaimed.id)).not.toContain('ClaimWindowClosed');
      clock.advance(61_000);
      await waitFor(async () => (await types(unclaimed.id)).includes('ClaimWindowClosed'), 'the claim window to close');
      await waitFor(() => filesOnDisk(t.dataDir, unclaimed.id).length === 0, 'the files to be deleted');

      const history = await t.service.deps.store.readStream(verificationStream(unclaimed.id));
      const closed = history.filter((e) => e.type === 'ClaimWindowClosed');
      expect(closed).toHaveLength(1);
      expect(closed[0]).toMatchObject({ metadata: { actor: { type: 'system', id: 'claim-window' } } });
      expect(closed[0]!.data.blob_keys).toEqual(expect.arrayContaining([`verifications/${unclaimed.id}/image.jpeg`, `verifications/${unclaimed.id}/thumbnail.jpg`, `verifications/${unclaimed.id}/raw_rendition.png`]));
      // The record stays, read by its anonymous owner: hashes, results, no thumbnail link.
      const read = await anonymousRead(unclaimed.id, unclaimed.anon);
      expect(read.output.verification).toMatchObject({ id: unclaimed.id, status: 'completed', image_thumbnail_url: '', raw_photo_hash: expect.stringMatching(/^sha256:[0-9a-f]{64}$/) });
      expect(read.output.verification.results.length).toBeGreaterThan(0);
      const late = await call('POST', '/v1/verifications/claim', { token: account.token, json: { anonymous_user_id: unclaimed.anon } });
      expect(late.status).toBe(410);
      expect(late.body.detail.error_code).toBe('CLAIM_EXPIRED');

      // The one claimed in time: untouched, its files all there.
      expect(await types(claimed.id)).not.toContain('ClaimWindowClosed');
      expect(filesOnDisk(t.dataDir, claimed.id)).toEqual(claimedFiles);
      expect((await call('GET', `/v1/verifications/${claimed.id}/renditions/thumbnail`, { token: account.token })).status).toBe(302);
    }, 600_000);
  });
}
