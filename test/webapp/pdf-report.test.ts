import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect } from 'vitest';
import { levelWords } from '../../src/features/verifications/words.js';
import { databaseTargets } from '../support/databases.js';
import { requires } from '../support/requires.js';
import { withStartsHeld } from '../support/held-start.js';
import { uploadImage, uploadPair } from '../support/service.js';
import { serviceSuite } from '../support/suite.js';
import { appRequest, signIn } from '../support/webapp.js';

/**
 * The signed PDF report (issue 39 item 6), checked by outsiders: poppler's `pdfsig` validates its
 * signature (and fails it once one byte changes) and `pdftotext` reads what it says, for a real
 * verified fixture pair. The API's read rule (401 without credentials, 404 for another account,
 * 409 before the verification is graded), the web app's and the share page's downloads, and the
 * PdfReportIssued event with the digest of the very bytes sent. Needs Debian's poppler-utils
 * (`apt-get install -y poppler-utils`; .ci/run installs it): without pdfsig the suite skips.
 */

const poppler = requires(
  { server: 'poppler-utils (pdfsig, pdftotext)', available: spawnSync('pdfsig', ['-v'], { stdio: 'ignore' }).status === 0, how: 'apt-get install -y poppler-utils' },
  'the signed PDF report checked by pdfsig',
);

const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'pdf-report-'));
afterAll(() => fs.rmSync(scratch, { recursive: true, force: true }));
let written = 0;

function fileOf(bytes: Buffer): string {
  written += 1;
  const file = path.join(scratch, `report-${written}.pdf`);
  fs.writeFileSync(file, bytes);
  return file;
}

const run = (tool: string, args: string[]) => {
  const done = spawnSync(tool, args, { encoding: 'utf8' });
  return { status: done.status, out: `${done.stdout}${done.stderr}` };
};
const pdfsig = (bytes: Buffer) => run('pdfsig', [fileOf(bytes)]).out;
const pdftext = (bytes: Buffer) => run('pdftotext', ['-layout', fileOf(bytes), '-']).out;
const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

async function download(url: string, headers: Record<string, string> = {}) {
  const response = await fetch(url, { headers, redirect: 'manual' });
  const bytes = Buffer.from(await response.arrayBuffer());
  return { status: response.status, type: response.headers.get('content-type') ?? '', disposition: response.headers.get('content-disposition') ?? '', bytes };
}

for (const target of databaseTargets) {
  poppler.describe(`signed PDF report on ${target.name}`, () => {
    const { t, call, newAccount } = serviceSuite(target, { MAX_UPLOAD_BYTES: String(16 * 1024 * 1024) });
    const owner = newAccount({ name: 'Harbour Picture Desk' });
    const other = newAccount();
    let pair: string;
    let api: Record<string, any>;
    let pdf: Buffer;

    beforeAll(async () => {
      pair = await uploadPair(t.url, owner.token);
      await t.settled();
      api = (await call('GET', `/v1/verifications/${pair}`, { token: owner.token })).body;
      const answer = await download(`${t.url}/v1/verifications/${pair}/report.pdf`, { authorization: `Bearer ${owner.token}` });
      expect(answer.status, answer.bytes.toString()).toBe(200);
      expect(answer.type).toBe('application/pdf');
      expect(answer.disposition).toMatch(/^attachment; filename="verification-report-.+\.pdf"$/);
      pdf = answer.bytes;
    }, 300_000);

    poppler.it('is signed by the service’s certificate, and pdfsig validates the signature over the whole file', () => {
      expect(api.status).toBe('completed');
      const out = pdfsig(pdf);
      expect(out).toContain('Signature is Valid.');
      expect(out).toContain('Signer Certificate Common Name: PhotoVerify DEVELOPMENT signer');
      expect(out).toContain('Signature Type: adbe.pkcs7.detached');
      expect(out).toContain('Total document signed');
      // Small: the photo is a downscaled JPEG, not the upload.
      expect(pdf.length).toBeLessThan(1_500_000);
    });

    poppler.it('fails pdfsig once one byte of the signed content changes', () => {
      // A byte of the document's /Producer string, in the signed range, keeps the file readable.
      const at = pdf.indexOf('/Producer');
      expect(at).toBeGreaterThan(0);
      const changed = Buffer.from(pdf);
      const target = pdf.indexOf('(', at) + 1;
      changed[target] = changed[target]! ^ 0x01;
      const out = pdfsig(changed);
      expect(out).not.toContain('Signature is Valid.');
      expect(out).toMatch(/Signature is Invalid|Digest Mismatch/i);
    });

    poppler.it('says what the report page says: level and its meaning, reference, region, camera, analyses, hashes, the audit bundle’s digest', async () => {
      const text = pdftext(pdf).replace(/\s+/g, ' ');
      const words = levelWords[api.assurance_level as keyof typeof levelWords];
      expect(text).toContain(`Assurance level: ${words.label}`);
      expect(text).toContain(words.pair.slice(0, 60));
      expect(text).toContain(`REF: ${api.short_code}`);
      expect(text).toMatch(/Processing region \S+ \(European Union\)/);
      expect(text).toContain('Camera (RAW)');
      expect(text).toContain('Structural similarity (SSIM)');
      expect(text).toContain('SSIM difference heatmap');
      expect(text).toContain(api.image_photo_hash.replace(/^sha256:/, ''));
      expect(text).toContain(api.raw_photo_hash.replace(/^sha256:/, ''));
      expect(text).toContain('This verification was not shared when the report was issued.');
      // The digest of the PDF sent, and of the audit bundle it names, are in the verification's history.
      const history = await call('GET', `/v1/audit/streams/pdfreport-${pair}`, { token: owner.token });
      expect(history.status).toBe(200);
      const issued = history.body.events.filter((e: { type: string }) => e.type === 'PdfReportIssued');
      expect(issued).toHaveLength(1);
      expect(issued[0].data).toMatchObject({ sha256: sha256(pdf), file_size_bytes: pdf.length, audience: 'owner' });
      expect(text).toContain(issued[0].data.audit_bundle_sha256);
    });

    poppler.it('is the owner’s only: 401 without credentials, 404 for another account (nothing recorded)', async () => {
      const url = `${t.url}/v1/verifications/${pair}/report.pdf`;
      const before = await t.eventCount();
      expect((await download(url)).status).toBe(401);
      const theirs = await call('GET', `/v1/verifications/${pair}/report.pdf`, { token: other.token });
      expect(theirs.status).toBe(404);
      expect(theirs.body.detail.error_code).toBe('VERIFICATION_NOT_FOUND');
      expect(await t.eventCount()).toBe(before);
    });

    poppler.it('refuses a verification that has no result yet with 409 PDF_REPORT_NOT_READY', async () => {
      // The verification's workflow held: it stays queued, ungraded, until released.
      const held = await withStartsHeld(t, () => uploadImage(t.url, owner.token, 'images/rs_sample1.webp', 'waiting.webp'));
      const id = held.id;
      const answer = await call('GET', `/v1/verifications/${id}/report.pdf`, { token: owner.token });
      expect(answer.status).toBe(409);
      expect(answer.body.detail.error_code).toBe('PDF_REPORT_NOT_READY');
      expect(answer.body.detail.details).toEqual({ status: 'queued' });
      await held.release();
    });

    poppler.it('is a download on the web app’s report page and, once shared, on the share page with the link and QR code', async () => {
      const session = await signIn(t.url, owner.email, owner.password);
      const page = await appRequest(t.url, 'GET', `/app/verifications/${pair}`, { cookie: session.cookie });
      expect(page.text).toContain(`href="/app/verifications/${pair}/report.pdf"`);
      const fromApp = await download(`${t.url}/app/verifications/${pair}/report.pdf`, { cookie: session.cookie });
      expect(fromApp.status).toBe(200);
      expect(pdfsig(fromApp.bytes)).toContain('Signature is Valid.');

      const shared = await call('POST', `/v1/verifications/${pair}/share`, { token: owner.token, json: { access_type: 'anyone_with_link' } });
      expect(shared.status, JSON.stringify(shared.body)).toBeLessThan(300);
      const shareUrl: string = shared.body.share_url;
      const token = shareUrl.slice(shareUrl.lastIndexOf('/') + 1);
      const sharePage = await fetch(`${t.url}/shared/${token}`).then((r) => r.text());
      expect(sharePage).toContain(`href="/shared/${token}/report.pdf"`);
      const fromLink = await download(`${t.url}/shared/${token}/report.pdf`);
      expect(fromLink.status).toBe(200);
      expect(pdfsig(fromLink.bytes)).toContain('Signature is Valid.');
      const text = pdftext(fromLink.bytes).replace(/\s+/g, ' ');
      expect(text).toContain(shareUrl);
      // The link opens the share page (a URI action), and the QR code is the one image the unshared report lacks.
      expect(fromLink.bytes.includes(`/URI (${shareUrl})`)).toBe(true);
      const images = (bytes: Buffer) => run('pdfimages', ['-list', fileOf(bytes)]).out.split('\n').filter((line) => /^\s*\d+\s+\d+\s+image/.test(line)).length;
      expect(images(fromLink.bytes)).toBe(images(pdf) + 1);
      const history = await call('GET', `/v1/audit/streams/pdfreport-${pair}`, { token: owner.token });
      expect(history.body.events.map((e: { data: { audience: string; sha256: string } }) => [e.data.audience, e.data.sha256])).toEqual([
        ['owner', sha256(pdf)],
        ['owner', sha256(fromApp.bytes)],
        ['share_link', sha256(fromLink.bytes)],
      ]);
      // A link that is not a share: the share page's 404.
      expect((await download(`${t.url}/shared/${'x'.repeat(32)}/report.pdf`)).status).toBe(404);
    });
  });
}
