import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { databaseTargets } from '../support/databases.js';
import { requiresS3, s3ServiceEnv } from '../support/s3.js';
import { client, registerAccount, startTestService, type TestService } from '../support/service.js';

/**
 * The service on S3 storage (a real versitygw), over HTTP: uploads land in the bucket and nothing
 * staged is left behind, downloads stream through the service by default (S3_DOWNLOADS=proxy) or
 * redirect to an S3 pre-signed URL (S3_DOWNLOADS=redirect), and health names the blob store.
 * Whole suites run on S3 too: BLOB_STORE=s3 (npm run test:s3).
 */
const jpeg = fs.readFileSync(path.resolve(import.meta.dirname, '../../../shared/fixtures/pairs/canon_eos_30d_cr2/IMG_5952.camera-preview.jpg'));
const target = databaseTargets[0]!;
const s3 = requiresS3('the service on S3 blob storage');

async function upload(url: string, token: string, bytes: Uint8Array) {
  const form = new FormData();
  form.append('image', new Blob([new Uint8Array(bytes)]), 'IMG_5952.jpg');
  const response = await fetch(`${url}/v1/verifications/`, { method: 'POST', headers: { authorization: `Bearer ${token}` }, body: form });
  return { status: response.status, body: await response.json() };
}

for (const mode of ['proxy', 'redirect'] as const) {
  s3.describe(`S3 blob storage over HTTP, downloads: ${mode}`, () => {
    let t: TestService;
    let token: string;
    let bucket: string;

    beforeAll(async () => {
      const env = await s3ServiceEnv();
      bucket = env.S3_BUCKET!;
      // Just above the fixture: a bigger file is refused mid-stream.
      t = await startTestService(target, { ...env, S3_DOWNLOADS: mode, MAX_UPLOAD_BYTES: String(jpeg.length + 1024) });
      ({ token } = await registerAccount(client(t.url)));
    });
    afterAll(async () => t?.stop());

    it('health reports the blob store as s3, answering', async () => {
      const health = await client(t.url)('GET', '/v1/public/health');
      expect(health.body.dependencies.blob_store).toEqual({ status: 'ok', adapter: 's3' });
    });

    it('an upload is stored in the bucket under its key, nothing left in staging', async () => {
      const created = await upload(t.url, token, jpeg);
      expect(created.status).toBe(201);
      const stored = await t.storedBlobs();
      expect(stored, JSON.stringify(stored)).toContain(`verifications/${created.body.id}/image.jpeg`);
      expect(stored.filter((key) => key.startsWith('.staging/') || key.startsWith('(upload)'))).toEqual([]);
    });

    it('an upload over the limit is refused with 413 and leaves nothing in the bucket', async () => {
      // The analysis of the upload before stores its renditions: let it finish first.
      await t.settled();
      const before = (await t.storedBlobs()).sort();
      const refused = await upload(t.url, token, Buffer.concat([jpeg, Buffer.alloc(64 * 1024)]));
      expect(refused.status).toBe(413);
      expect((await t.storedBlobs()).sort()).toEqual(before);
    });

    it(mode === 'proxy' ? 'the download link streams the bytes through the service' : 'the download link redirects to an S3 pre-signed URL of at most an hour, which serves the bytes', async () => {
      const created = await upload(t.url, token, jpeg);
      expect(created.status).toBe(201);
      const link = await fetch(`${t.url}/v1/verifications/${created.body.id}/image`, { headers: { authorization: `Bearer ${token}` }, redirect: 'manual' });
      expect(link.status).toBe(302);
      const download = link.headers.get('location')!;
      expect(download.startsWith(`${t.url}/blobs/`)).toBe(true);
      const answer = await fetch(download, { redirect: 'manual' });
      let file = answer;
      if (mode === 'proxy') {
        expect(answer.status).toBe(200);
        expect(answer.headers.get('x-content-type-options')).toBe('nosniff');
      } else {
        expect(answer.status).toBe(302);
        const s3Url = new URL(answer.headers.get('location')!);
        expect(`${s3Url.protocol}//${s3Url.host}`).toBe(t.service.deps.config.S3_ENDPOINT);
        expect(s3Url.pathname).toBe(`/${bucket}/verifications/${created.body.id}/image.jpeg`);
        expect(Number(s3Url.searchParams.get('X-Amz-Expires'))).toBeGreaterThan(3500);
        expect(Number(s3Url.searchParams.get('X-Amz-Expires'))).toBeLessThanOrEqual(3600);
        file = await fetch(s3Url);
        expect(file.status).toBe(200);
      }
      expect(file.headers.get('content-type')).toBe('image/jpeg');
      expect(Buffer.from(await file.arrayBuffer()).equals(jpeg)).toBe(true);
    });
  });
}
