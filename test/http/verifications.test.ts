import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkCredentials } from '../../src/provenance/check.js';
import { databaseTargets } from '../support/databases.js';
import { waitForTerminal } from '../support/poll.js';
import { client, registerAccount, startTestService, type TestService } from '../support/service.js';

const fixtures = path.resolve(import.meta.dirname, '../../../shared/fixtures');
const fixture = (name: string) => fs.readFileSync(path.join(fixtures, name));
const pairJpeg = 'pairs/canon_eos_30d_cr2/IMG_5952.camera-preview.jpg';
const pairRaw = 'pairs/canon_eos_30d_cr2/IMG_5952.CR2';

type Part = { field: string; name: string; bytes: Uint8Array };

async function upload(url: string, token: string, parts: Part[], extra: Record<string, string> = {}) {
  const form = new FormData();
  for (const part of parts) form.append(part.field, new Blob([new Uint8Array(part.bytes)]), part.name);
  for (const [name, value] of Object.entries(extra)) form.append(name, value);
  const response = await fetch(`${url}/v1/verifications/`, { method: 'POST', headers: { authorization: `Bearer ${token}` }, body: form });
  return { status: response.status, body: await response.json() };
}

const blobCount = async (t: TestService) => (await t.storedBlobs()).length;

for (const target of databaseTargets) {
  // Pairs go through the workflow: up to the verification's 10-minute deadline on a loaded machine.
  describe(`verifications over HTTP on ${target.name}`, { timeout: 15 * 60_000 }, () => {
    let t: TestService;
    let call: ReturnType<typeof client>;
    let owner: Awaited<ReturnType<typeof registerAccount>>;
    let other: Awaited<ReturnType<typeof registerAccount>>;
    let verifiedId: string;

    beforeAll(async () => {
      t = await startTestService(target, { MAX_UPLOAD_BYTES: String(8 * 1024 * 1024) });
      call = client(t.url);
      owner = await registerAccount(call);
      other = await registerAccount(call);
    });
    afterAll(async () => t?.stop());

    it('verifies the Canon 30D pair: completed, verified, hashes, results, badge', async () => {
      const created = await upload(t.url, owner.token, [
        { field: 'image', name: 'IMG_5952.jpg', bytes: fixture(pairJpeg) },
        { field: 'raw', name: 'IMG_5952.CR2', bytes: fixture(pairRaw) },
      ]);
      expect(created.status).toBe(201);
      verifiedId = created.body.id;
      const v = await waitForTerminal(call, owner.token, verifiedId);
      expect(v).toMatchObject({ status: 'completed', verification_mode: 'raw_pair', assurance_level: 'verified', result: true, name: 'IMG_5952.jpg', account_id: owner.account.id });
      expect(v.short_code).toMatch(/^L-[0-9A-Z]{6}$/);
      expect(v.image_photo_hash).toMatch(/^sha256:ee9d178bd581a70f/);
      expect(v.raw_photo_hash).toMatch(/^sha256:9f4958fb43824fdc/);
      expect(v.result_confidence).toBeGreaterThan(0.8);
      expect(v.results.map((r: { details: { analysis: string } }) => r.details.analysis).sort()).toEqual(
        ['color_histogram', 'exif', 'perceptual_hash', 'processing_chain', 'raw_integrity', 'recapture', 'sensor_pattern', 'ssim'],
      );
      for (const r of v.results) expect(r).toMatchObject({ verification_id: verifiedId, id: expect.any(String), verificator_id: expect.any(String) });

      const badge = await call('GET', `/v1/verifications/${verifiedId}/renditions/signed/original`, { token: owner.token });
      expect(badge.status).toBe(302);
      const file = await fetch(badge.headers.get('location')!);
      expect(file.status).toBe(200);
      expect(file.headers.get('content-type')).toBe('image/jpeg');
      const bytes = new Uint8Array(await file.arrayBuffer());
      expect([bytes[0], bytes[1]]).toEqual([0xff, 0xd8]);

      const thumb = await call('GET', `/v1/verifications/${verifiedId}/renditions/thumbnail`, { token: owner.token });
      expect(thumb.status).toBe(302);
      const image = await call('GET', `/v1/verifications/${verifiedId}/image`, { token: owner.token });
      expect(image.headers.get('location')).toContain('/blobs/');
    });

    it('records the whole life in the audit history with the processing region on every event', async () => {
      // The RAW is discarded just after completion (RAW_RETENTION's default), in an append of its own.
      const history = async () => (await call('GET', `/v1/audit/streams/verification-${verifiedId}`, { token: owner.token })).body;
      const deadline = Date.now() + 60_000;
      let body = await history();
      while (!body.events.some((e: { type: string }) => e.type === 'RawFileDiscarded') && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 200));
        body = await history();
      }
      const res = { body };
      // Every fact once, in the order it happened (the steps record them in batches: the order within a batch is part of it).
      const facts = res.body.events.map((e: { type: string; data: { kind?: string } }) => (e.type === 'RenditionStored' ? `RenditionStored ${e.data.kind}` : e.type));
      expect(facts).toEqual([
        'VerificationQueued',
        'VerificationStarted',
        'RenditionStored heatmap',
        'RenditionStored raw_reference',
        'RenditionStored raw_rendition',
        ...Array(8).fill('AnalysisRecorded'),
        'VerificationGraded',
        'RenditionStored signed_image',
        'RenditionStored badge',
        'RenditionStored thumbnail',
        'VerificationCompleted',
        'RawFileDiscarded',
      ]);
      expect(res.body.events.every((e: { metadata: { processing_region: string } }) => e.metadata.processing_region === 'eu-central-1')).toBe(true);
      expect(res.body.events[0].data.image.sha512).toMatch(/^[0-9a-f]{128}$/);
    });

    it('grades image-only files from their Content Credentials', async () => {
      const cases: [string, string, string][] = [
        ['c2pa/pt_adobe-20220124-E-sig-CA.jpg', 'flagged', 'invalid_signature'],
        ['c2pa/ms_cards_invalid.jpg', 'flagged', 'tampered'],
        ['images/rs_sample1.webp', 'unrated', 'unrated_no_evidence'],
      ];
      for (const [file, level, reason] of cases) {
        const created = await upload(t.url, owner.token, [{ field: 'image', name: path.basename(file), bytes: fixture(file) }]);
        expect(created.status, file).toBe(201);
        const v = await waitForTerminal(call, owner.token, created.body.id);
        expect([v.verification_mode, v.assurance_level, v.verdict_reason], file).toEqual(['image_only', level, reason]);
        expect(v.evidence_report).toHaveProperty('status_codes');
        const history = await call('GET', `/v1/audit/streams/verification-${created.body.id}`, { token: owner.token });
        expect(history.body.events.map((e: { type: string }) => e.type), file).toEqual([
          'VerificationQueued',
          'VerificationStarted',
          'AnalysisRecorded',
          'VerificationGraded',
          'RenditionStored',
          'VerificationCompleted',
        ]);
        expect((await call('GET', `/v1/verifications/${created.body.id}/renditions/signed/original`, { token: owner.token })).status).toBe(404);
      }
    });

    it('flags the JPEG of a different scene submitted with the 30D RAW', async () => {
      const created = await upload(t.url, owner.token, [
        { field: 'image', name: 'other.jpg', bytes: fixture('images/mei_canon-eos450d.jpg') },
        { field: 'raw', name: 'IMG_5952.CR2', bytes: fixture(pairRaw) },
      ]);
      const v = await waitForTerminal(call, owner.token, created.body.id);
      expect(v).toMatchObject({ status: 'completed', assurance_level: 'flagged', result: false });
      expect((await call('GET', `/v1/verifications/${created.body.id}/renditions/signed/original`, { token: owner.token })).status).toBe(404);
      await call('DELETE', `/v1/verifications/${created.body.id}`, { token: owner.token });
    });

    it('grades every C2PA fixture in image-only mode exactly as the credentials checker does', async () => {
      const files = fs.readdirSync(path.join(fixtures, 'c2pa')).filter((f) => !f.endsWith('.dng'));
      const created = [];
      for (const file of files) {
        const res = await upload(t.url, owner.token, [{ field: 'image', name: file, bytes: fixture(`c2pa/${file}`) }]);
        expect(res.status, file).toBe(201);
        created.push({ file, id: res.body.id as string });
      }
      for (const { file, id } of created) {
        const v = await waitForTerminal(call, owner.token, id);
        const expected = await checkCredentials(fixture(`c2pa/${file}`), t.service.deps.trust);
        expect([v.assurance_level, v.verdict, v.verdict_reason], file).toEqual([expected.assurance_level, expected.verdict, expected.verdict_reason]);
        await call('DELETE', `/v1/verifications/${id}`, { token: owner.token });
      }
    });

    it.each([
      ['a RAW in the image field', [{ field: 'image', name: 'x.jpg', bytes: fixture(pairRaw).subarray(0, 200_000) }], 400, 'UNSUPPORTED_FORMAT'],
      ['a 0-byte image', [{ field: 'image', name: 'empty.jpg', bytes: new Uint8Array() }], 400, 'UNSUPPORTED_FORMAT'],
      ['a truncated JPEG', [{ field: 'image', name: 'cut.jpg', bytes: fixture(pairJpeg).subarray(0, 100_000) }], 400, 'CORRUPT_FILE'],
      ['a JPEG renamed .nef as the RAW', [{ field: 'image', name: 'a.jpg', bytes: fixture(pairJpeg) }, { field: 'raw', name: 'b.nef', bytes: fixture('raw/mei_issue247-1_jpeg_content.nef') }], 400, 'UNSUPPORTED_FORMAT'],
      ['a PNG with a RAW', [{ field: 'image', name: 'a.png', bytes: fixture('images/exifr_png_with_exif_and_gps.png') }, { field: 'raw', name: 'b.cr2', bytes: fixture(pairRaw) }], 400, 'UNSUPPORTED_FORMAT'],
      ['a file over the limit', [{ field: 'image', name: 'big.jpg', bytes: new Uint8Array(9 * 1024 * 1024) }], 413, 'PAYLOAD_TOO_LARGE'],
      ['a malformed attestation id', [{ field: 'image', name: 'a.jpg', bytes: fixture(pairJpeg) }], 400, 'INVALID_ATTESTATION', { attestation_id: 'att_unknown' }],
      ['an unknown attestation id', [{ field: 'image', name: 'a.jpg', bytes: fixture(pairJpeg) }], 400, 'ATTESTATION_NOT_FOUND', { attestation_id: '5b0c7c5e-0000-4000-8000-000000000000' }],
    ] as [string, Part[], number, string, Record<string, string>?][])('rejects %s, storing nothing', async (_label, parts, status, code, extra) => {
      const events = await t.eventCount();
      const blobs = await blobCount(t);
      const res = await upload(t.url, owner.token, parts, extra);
      expect(res.status).toBe(status);
      expect(res.body.detail.error_code).toBe(code);
      expect(res.body.detail.suggestion).toEqual(expect.any(String));
      expect(await t.eventCount()).toBe(events);
      expect(await blobCount(t)).toBe(blobs);
    });

    it('rejects wrong field names, missing parts and repeated fields with 422', async () => {
      const events = await t.eventCount();
      const blobs = await blobCount(t);
      const wrong = await upload(t.url, owner.token, [{ field: 'photo', name: 'a.jpg', bytes: fixture(pairJpeg) }]);
      expect(wrong.status).toBe(422);
      expect(wrong.body.detail[0]).toMatchObject({ loc: ['body', 'photo'], type: 'extra_forbidden' });
      const none = await upload(t.url, owner.token, [], { note: 'x' });
      expect(none.status).toBe(422);
      const json = await call('POST', '/v1/verifications/', { token: owner.token, json: { image: 'x' } });
      expect(json.status).toBe(422);
      // A text field sent twice: which one was meant cannot be told, so neither is used.
      const twice = new FormData();
      twice.append('image', new Blob([new Uint8Array(fixture(pairJpeg))]), 'a.jpg');
      twice.append('attestation_id', '5b0c7c5e-0000-4000-8000-000000000000');
      twice.append('attestation_id', '5b0c7c5e-0000-4000-8000-000000000001');
      const repeated = await fetch(`${t.url}/v1/verifications/`, { method: 'POST', headers: { authorization: `Bearer ${owner.token}` }, body: twice });
      expect(repeated.status).toBe(422);
      expect(((await repeated.json()) as { detail: { loc: string[]; type: string }[] }).detail[0]).toMatchObject({ loc: ['body', 'attestation_id'], type: 'too_many' });
      expect(await t.eventCount()).toBe(events);
      expect(await blobCount(t)).toBe(blobs);
    });

    it("hides other accounts' verifications on every route", async () => {
      const events = await t.eventCount();
      for (const [method, route] of [
        ['GET', `/v1/verifications/${verifiedId}`],
        ['DELETE', `/v1/verifications/${verifiedId}`],
        ['GET', `/v1/verifications/${verifiedId}/renditions/thumbnail`],
        ['GET', `/v1/verifications/${verifiedId}/renditions/signed/original`],
        ['GET', `/v1/verifications/${verifiedId}/image`],
      ]) {
        const res = await call(method!, route!, { token: other.token });
        expect(res.status, `${method} ${route}`).toBe(404);
        expect(res.body.detail.error_code).toBe('VERIFICATION_NOT_FOUND');
      }
      const listed = await call('GET', '/v1/verifications/', { token: other.token });
      expect(listed.body).toMatchObject({ items: [], total: 0, offset: 0, size: 0, total_pages: 0 });
      expect((await call('GET', `/v1/audit/streams/verification-${verifiedId}`, { token: other.token })).status).toBe(404);
      expect(await t.eventCount()).toBe(events);
    });

    it('lists with filters, search and the list envelope; rejects bad filters with 400 and a suggestion', async () => {
      const all = await call('GET', '/v1/verifications/?size=2&sort_by=created_at&sort_order=asc', { token: owner.token });
      expect(all.status).toBe(200);
      expect(all.body).toMatchObject({ offset: 0, size: 2, total: 4, total_pages: 2 });
      expect(all.body.items[0].id).toBe(verifiedId);
      const byResult = await call('GET', '/v1/verifications/?result=true', { token: owner.token });
      expect(byResult.body.items.map((v: { id: string }) => v.id)).toEqual([verifiedId]);
      const byHash = await call('GET', '/v1/verifications/?search=ee9d178bd581a70f', { token: owner.token });
      expect(byHash.body.total).toBe(0);
      const full = (await call('GET', `/v1/verifications/${verifiedId}`, { token: owner.token })).body.image_photo_hash;
      expect((await call('GET', `/v1/verifications/?search=${full}`, { token: owner.token })).body.items[0].id).toBe(verifiedId);
      expect((await call('GET', '/v1/verifications/?search=IMG_59', { token: owner.token })).body.total).toBe(1);
      expect((await call('GET', '/v1/verifications/?status=completed,failed', { token: owner.token })).body.total).toBe(4);

      const badStatus = await call('GET', '/v1/verifications/?status=completed,done', { token: owner.token });
      expect(badStatus.status).toBe(400);
      expect(badStatus.body.detail.error_code).toBe('VALIDATION_ERROR');
      expect(badStatus.body.detail.suggestion).toContain('pending, queued, in_progress, completed, failed');
      const badSort = await call('GET', '/v1/verifications/?sort_by=name', { token: owner.token });
      expect(badSort.status).toBe(400);
      expect(badSort.body.detail.suggestion).toContain('created_at, updated_at, status');
      expect((await call('GET', '/v1/verifications/?size=101', { token: owner.token })).status).toBe(422);
      expect((await call('GET', '/v1/verifications/?offset=-1', { token: owner.token })).status).toBe(422);
      // Integers in decimal digits only: other spellings of a number are not the documented integer.
      for (const spelling of ['', '%20', '1e1', '0x10', '2.0', '1_0', 'Infinity']) expect((await call('GET', `/v1/verifications/?size=${spelling}`, { token: owner.token })).status, spelling).toBe(422);
    });

    it('refuses tampered and expired signed URLs', async () => {
      const res = await call('GET', `/v1/verifications/${verifiedId}/image`, { token: owner.token });
      const url = new URL(res.headers.get('location')!);
      const tampered = new URL(url);
      tampered.searchParams.set('ct', 'text/html');
      expect((await fetch(tampered)).status).toBe(403);
      const otherKey = new URL(url);
      otherKey.pathname = `/blobs/${Buffer.from(`verifications/${verifiedId}/raw.cr2`).toString('base64url')}`;
      expect((await fetch(otherKey)).status).toBe(403);
      const realNow = t.service.deps.now;
      t.service.deps.now = () => new Date(Date.now() + 3601_000);
      try {
        const expired = await fetch(url);
        expect(expired.status).toBe(403);
        expect((await expired.json()).detail.message).toContain('expired');
      } finally {
        t.service.deps.now = realNow;
      }
    });

    it('deletes permanently: files removed, later reads 404, recorded as an event', async () => {
      const before = await blobCount(t);
      const res = await call('DELETE', `/v1/verifications/${verifiedId}`, { token: owner.token });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ detail: 'Verification deleted.' });
      expect(await blobCount(t)).toBeLessThan(before - 4);
      expect((await call('GET', `/v1/verifications/${verifiedId}`, { token: owner.token })).status).toBe(404);
      expect((await call('DELETE', `/v1/verifications/${verifiedId}`, { token: owner.token })).status).toBe(404);
      const history = await call('GET', `/v1/audit/streams/verification-${verifiedId}`, { token: owner.token });
      expect(history.body.events.at(-1).type).toBe('VerificationDeleted');
    });
  });
}
