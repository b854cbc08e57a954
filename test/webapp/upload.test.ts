import { rawFileExtensions, rawFormats } from '../../src/analysis/types.js';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { escapeHtml } from '../../src/core/text/html.js';
import { inPageWords } from '../../src/web/upload-page.js';
import { newDevice, signAttestation } from '../support/capture.js';
import { databaseTargets } from '../support/databases.js';
import { registerAccount, type TestService } from '../support/service.js';
import { serviceSuite } from '../support/suite.js';
import { appRequest, signIn } from '../support/webapp.js';

/**
 * The web app's upload page (issue 27, must-work 2): the quota left (the usage use case), and the
 * form's POST, which is createVerification with the REST route's parts and size limit plus the
 * session's CSRF token. What the page creates is read back through the REST API.
 */

const fixtures = path.resolve(import.meta.dirname, '../../../shared/fixtures');
const fixture = (name: string) => fs.readFileSync(path.join(fixtures, name));
// The 6D pair is small (0.4 MB RAW): cheap to analyse several times on a busy machine.
const pairJpeg = fixture('pairs/canon_eos_6d_dng/canon_eos_6d.preview.jpg');
const pairRaw = fixture('pairs/canon_eos_6d_dng/canon_eos_6d.dng');
const webp = fixture('images/rs_sample1.webp');
const LIMIT = 8 * 1024 * 1024;

type Part = { field: string; name: string; bytes: Uint8Array };
const photo = (name = 'harbour.webp', bytes: Uint8Array = webp): Part => ({ field: 'image', name, bytes });
const pairParts = (name = 'pier.jpg'): Part[] => [
  { field: 'image', name, bytes: pairJpeg },
  { field: 'raw', name: name.replace(/\.jpg$/, '.dng'), bytes: pairRaw },
];

function multipart(parts: Part[], fields: Record<string, string>): FormData {
  const form = new FormData();
  // The token first, as the page's form sends it.
  for (const [name, value] of Object.entries(fields)) form.append(name, value);
  for (const part of parts) form.append(part.field, new Blob([new Uint8Array(part.bytes)]), part.name);
  return form;
}

/** The page's form as a browser without JavaScript sends it. */
async function postUpload(url: string, cookie: string, parts: Part[], fields: Record<string, string>, headers: Record<string, string> = {}) {
  const response = await fetch(`${url}/app/upload`, { method: 'POST', headers: { cookie, ...headers }, body: multipart(parts, fields), redirect: 'manual' });
  return { status: response.status, location: response.headers.get('location'), text: await response.text() };
}

async function apiUpload(url: string, token: string, parts: Part[], fields: Record<string, string> = {}) {
  const response = await fetch(`${url}/v1/verifications/`, { method: 'POST', headers: { authorization: `Bearer ${token}` }, body: multipart(parts, fields) });
  return { status: response.status, body: await response.json() };
}

const blobCount = (t: TestService) => {
  const walk = (dir: string): number => fs.readdirSync(dir, { withFileTypes: true }).reduce((n, e) => n + (e.isDirectory() ? walk(path.join(dir, e.name)) : 1), 0);
  return walk(path.join(t.dataDir, 'blobs'));
};

/** The quota figures the page shows (data-quota marks the numbers in its sentence). */
const quotaOf = (page: string) => Object.fromEntries([...page.matchAll(/data-quota="(\w+)">(\d+)</g)].map((m) => [m[1], Number(m[2])]));
const alertOf = (page: string) => /<p id="form-error" class="alert" role="alert" tabindex="-1">([^<]*)<\/p>/.exec(page)?.[1];
/** The API's refusal as the page says it: its words, its part names said as the page's labels. */
const pageWords = (detail: { message: string; suggestion?: string }) => escapeHtml([detail.message, detail.suggestion].filter(Boolean).map((w) => inPageWords(w!)).join(' '));
/** What the API calls a part and the page must not: `"raw"`, "The image part", attestation_id. */
const API_PART_WORDS = /"(image|raw)"|\b(image|raw) part\b|attestation_id/;
const sha256 = (bytes: Uint8Array) => crypto.createHash('sha256').update(bytes).digest('hex');

/** The fields an upload fixes (the rest, status and results, move with the analysis). */
const uploadFields = (v: Record<string, unknown>) => ({
  name: v.name,
  verification_mode: v.verification_mode,
  image_photo_hash: v.image_photo_hash,
  raw_photo_hash: v.raw_photo_hash,
  attestation_id: v.attestation_id,
});

for (const target of databaseTargets) {
  // Pairs go through the workflow; the suite's service waits for them when it stops.
  describe(`web app upload on ${target.name}`, { timeout: 10 * 60_000 }, () => {
    const { t, call } = serviceSuite(target, { MAX_UPLOAD_BYTES: String(LIMIT) });

    it('shows the quota left as the API’s usage says, and the form works without script', async () => {
      const free = await registerAccount(call);
      const { cookie, csrf } = await signIn(t.url, free.email, free.password);
      const page = await appRequest(t.url, 'GET', '/app/upload', { cookie });
      expect(page.status).toBe(200);
      // Its one script runs under the page's nonce; forms go to this origin only.
      const nonce = /<script nonce="([^"]+)">/.exec(page.text)?.[1];
      expect(page.headers['content-security-policy']).toContain(`script-src 'nonce-${nonce}'`);
      expect(page.headers['content-security-policy']).toContain("form-action 'self'");
      expect(page.text).toContain(`<form id="upload-form" method="post" action="/app/upload" enctype="multipart/form-data"`);
      expect(page.text).toContain(`<input type="hidden" name="csrf_token" value="${csrf}">`);
      expect(page.text).toContain('<a href="/app/upload" aria-current="page">Upload</a>');
      // The RAW picker takes every format the service reads (analysis/types.ts), the old ones too.
      for (const format of rawFormats) for (const extension of rawFileExtensions[format]) expect(page.text).toContain(`.${extension}`);
      expect(page.text).toContain('Canon CRW');
      const usage = (await call('GET', `/v1/accounts/${free.account.id}/usage`, { token: free.token })).body;
      expect(quotaOf(page.text)).toEqual({ used: usage.included_used, included: usage.included, left: usage.included_remaining });
      expect(quotaOf(page.text)).toEqual({ used: 0, included: 5, left: 5 });
      expect(page.text).toContain('Your next pair is included in your plan.');
      expect(page.text).toContain('The Free plan has no extra pairs');
      expect(page.text).toContain('An image alone is free');

      // A paid plan with a budget cap: what a pair beyond the included ones costs, and what the cap leaves.
      const basic = await registerAccount(call, { plan: 'basic', billing_country: 'US', monthly_budget_cap_eur: 1 });
      const paid = await appRequest(t.url, 'GET', '/app/upload', { cookie: (await signIn(t.url, basic.email, basic.password)).cookie });
      const basicUsage = (await call('GET', `/v1/accounts/${basic.account.id}/usage`, { token: basic.token })).body;
      expect(quotaOf(paid.text)).toEqual({ used: basicUsage.included_used, included: basicUsage.included, left: basicUsage.included_remaining });
      expect(paid.text).toContain('Beyond the included pairs each one costs $0.25, as long as the monthly budget cap of $1.00 covers it: $1.00 of it is left.');

      // Signed out: to sign in, nothing shown.
      const signedOut = await appRequest(t.url, 'GET', '/app/upload');
      expect([signedOut.status, signedOut.location]).toEqual([303, '/app/login']);
    });

    it('creates an image alone and a pair, each the verification an API upload makes, and the quota counts the pair', async () => {
      const a = await registerAccount(call);
      const { cookie, csrf } = await signIn(t.url, a.email, a.password);

      // The attestation id left empty, as a browser sends a field not filled: none.
      const alone = await postUpload(t.url, cookie, [photo('harbour.webp')], { csrf_token: csrf, attestation_id: '' });
      expect(alone.status).toBe(303);
      const aloneId = /^\/app\/verifications\/([0-9a-f-]{36})$/.exec(alone.location ?? '')?.[1];
      expect(aloneId).toBeDefined();
      const viaApi = await apiUpload(t.url, a.token, [photo('harbour.webp')]);
      expect(viaApi.status).toBe(201);
      const [mine, theirs] = await Promise.all([aloneId, viaApi.body.id].map(async (id) => (await call('GET', `/v1/verifications/${id}`, { token: a.token })).body));
      expect(uploadFields(mine)).toEqual(uploadFields(theirs));
      expect(mine.verification_mode).toBe('image_only');
      // The page it leads to is the verification's.
      const opened = await appRequest(t.url, 'GET', alone.location!, { cookie });
      expect(opened.status).toBe(200);
      expect(opened.text).toContain('harbour.webp');

      const pair = await postUpload(t.url, cookie, pairParts('pier.jpg'), { csrf_token: csrf });
      expect(pair.status).toBe(303);
      const pairId = pair.location!.split('/').at(-1);
      const pairViaApi = await apiUpload(t.url, a.token, pairParts('pier.jpg'));
      expect(pairViaApi.status).toBe(201);
      const [pageMade, apiMade] = await Promise.all([pairId, pairViaApi.body.id].map(async (id) => (await call('GET', `/v1/verifications/${id}`, { token: a.token })).body));
      expect(uploadFields(pageMade)).toEqual(uploadFields(apiMade));
      expect(pageMade.verification_mode).toBe('raw_pair');
      expect(pageMade.raw_photo_hash).not.toBe('');

      // Both listed by the API; both pairs counted, the images alone not; the page says what the API says.
      const listed = await call('GET', '/v1/verifications/?size=100', { token: a.token });
      expect(new Set(listed.body.items.map((v: { id: string }) => v.id))).toEqual(new Set([aloneId, viaApi.body.id, pairId, pairViaApi.body.id]));
      const usage = (await call('GET', `/v1/accounts/${a.account.id}/usage`, { token: a.token })).body;
      expect(usage.included_used).toBe(2);
      expect(quotaOf((await appRequest(t.url, 'GET', '/app/upload', { cookie })).text)).toEqual({ used: 2, included: 5, left: 3 });
    });

    it('lets a member upload for the account: the admin sees the verification, and both see the account’s quota', async () => {
      const admin = await registerAccount(call);
      const email = `member-${admin.account.id}@example.eu`;
      const added = await call('POST', `/v1/accounts/${admin.account.id}/users`, { token: admin.token, json: { email, name: 'Member', password: 'member password 1' } });
      expect(added.status).toBe(201);
      expect(added.body.role).toBe('member');
      const member = await signIn(t.url, email, 'member password 1');
      const sent = await postUpload(t.url, member.cookie, pairParts('by-member.jpg'), { csrf_token: member.csrf });
      expect(sent.status).toBe(303);
      const id = sent.location!.split('/').at(-1);
      expect((await call('GET', `/v1/verifications/${id}`, { token: admin.token })).body).toMatchObject({ name: 'by-member.jpg', verification_mode: 'raw_pair' });
      const adminPage = await appRequest(t.url, 'GET', '/app/upload', { cookie: (await signIn(t.url, admin.email, admin.password)).cookie });
      const memberPage = await appRequest(t.url, 'GET', '/app/upload', { cookie: member.cookie });
      expect(quotaOf(memberPage.text)).toEqual({ used: 1, included: 5, left: 4 });
      expect(quotaOf(adminPage.text)).toEqual(quotaOf(memberPage.text));
    });

    it('refuses a form without the session’s token, with another session’s, or from another site, storing nothing', async () => {
      const a = await registerAccount(call);
      const b = await registerAccount(call);
      const { cookie } = await signIn(t.url, a.email, a.password);
      const other = await signIn(t.url, b.email, b.password);
      const own = await signIn(t.url, a.email, a.password);
      await t.settled();
      const events = await t.eventCount();
      const blobs = blobCount(t);
      const refusals = [
        await postUpload(t.url, cookie, [photo()], {}),
        await postUpload(t.url, cookie, [photo()], { csrf_token: other.csrf }),
        // The same user's other sign-in: a token is good for its own session alone.
        await postUpload(t.url, cookie, [photo()], { csrf_token: own.csrf }),
        await postUpload(t.url, own.cookie, [photo()], { csrf_token: own.csrf }, { origin: 'https://elsewhere.example' }),
        await postUpload(t.url, own.cookie, [photo()], { csrf_token: own.csrf }, { 'sec-fetch-site': 'cross-site' }),
      ];
      for (const refused of refusals) {
        expect(refused.status).toBe(403);
        expect(refused.text).toContain('This form was not accepted');
      }
      expect(await t.eventCount()).toBe(events);
      expect(blobCount(t)).toBe(blobs);
      expect((await call('GET', '/v1/verifications/', { token: a.token })).body.total).toBe(0);
      // Signed out, the form sends the browser to sign in and stores nothing.
      const signedOut = await postUpload(t.url, '', [photo()], {});
      expect([signedOut.status, signedOut.location]).toEqual([303, '/app/login']);
      expect(await t.eventCount()).toBe(events);
    });

    it('shows the page again with the reason and the API’s status for a wrong file, one too large, no photo; nothing stored', async () => {
      const a = await registerAccount(call);
      const { cookie, csrf } = await signIn(t.url, a.email, a.password);
      await t.settled();
      const events = await t.eventCount();
      const blobs = blobCount(t);
      const cases: [string, Part[], number][] = [
        ['a text file as the photo', [photo('notes.jpg', new TextEncoder().encode('not a photo at all'))], 400],
        ['a JPEG as the RAW', [photo('a.jpg', pairJpeg), { field: 'raw', name: 'b.dng', bytes: pairJpeg }], 400],
        ['a truncated JPEG', [photo('cut.jpg', pairJpeg.subarray(0, 20_000))], 400],
        ['a file over the limit', [photo('big.jpg', new Uint8Array(LIMIT + 1024 * 1024))], 413],
      ];
      for (const [label, parts, status] of cases) {
        const api = await apiUpload(t.url, a.token, parts);
        const page = await postUpload(t.url, cookie, parts, { csrf_token: csrf });
        expect({ label, status: page.status }).toEqual({ label, status });
        expect(api.status).toBe(status);
        // The API's words, said above the form (role="alert") with the page's field names, and the form again.
        expect(alertOf(page.text), label).toBe(pageWords(api.body.detail));
        expect(alertOf(page.text), label).not.toMatch(API_PART_WORDS);
        expect(page.text).toContain('<form id="upload-form"');
      }
      // The parts are named by the labels the form shows them with.
      const textAsPhoto = await postUpload(t.url, cookie, cases[0]![1], { csrf_token: csrf });
      expect(alertOf(textAsPhoto.text)).toMatch(/^The photo is /);
      const jpegAsRaw = await postUpload(t.url, cookie, cases[1]![1], { csrf_token: csrf });
      expect(alertOf(jpegAsRaw.text)).toMatch(/^The camera RAW file is .+ Send a camera RAW file in &quot;Camera RAW file&quot;/);
      expect(jpegAsRaw.text).toContain('<label for="raw">Camera RAW file (optional)</label>');
      const noPhoto = await postUpload(t.url, cookie, [], { csrf_token: csrf });
      expect(noPhoto.status).toBe(422);
      expect(alertOf(noPhoto.text)).toBe('Choose the photo to verify (the RAW file is optional).');
      // Every user error of the use case is the form's (issue 37), an attestation id it cannot use too.
      for (const [attestationId, code] of [['00000000-0000-4000-8000-000000000000', 'ATTESTATION_NOT_FOUND'], ['att_unknown', 'INVALID_ATTESTATION']] as const) {
        const apiAttested = await apiUpload(t.url, a.token, [photo()], { attestation_id: attestationId });
        const attested = await postUpload(t.url, cookie, [photo()], { csrf_token: csrf, attestation_id: attestationId });
        expect([attested.status, apiAttested.status, apiAttested.body.detail.error_code]).toEqual([400, 400, code]);
        expect(attested.text).toContain('<form id="upload-form"');
        expect(alertOf(attested.text)).toBe(pageWords(apiAttested.body.detail));
        expect(alertOf(attested.text)).not.toMatch(API_PART_WORDS);
        expect(alertOf(attested.text)).toMatch(/[Cc]apture attestation id/);
        // The id typed stays in its field (a browser cannot keep the files).
        expect(attested.text).toContain(`name="attestation_id" aria-describedby="attestation-hint" autocomplete="off" spellcheck="false" inputmode="text" value="${attestationId}">`);
      }
      expect(await t.eventCount()).toBe(events);
      expect(blobCount(t)).toBe(blobs);
      expect((await call('GET', '/v1/verifications/', { token: a.token })).body.total).toBe(0);
    });

    it('takes a capture attestation id as the API does: its capture facts on the verification; one not over these files, or used, refused in the page’s words', async () => {
      const a = await registerAccount(call);
      const { cookie, csrf } = await signIn(t.url, a.email, a.password);
      const page = await appRequest(t.url, 'GET', '/app/upload', { cookie });
      expect(page.text).toContain('<label for="attestation_id">Capture attestation id (optional)</label>');
      const device = await newDevice();
      const challenge = await call('POST', '/capture/challenge', { token: a.token });
      expect(challenge.status).toBe(201);
      const jws = await signAttestation(device, {
        v: 1,
        nonce: challenge.body.nonce,
        image_sha256: sha256(pairJpeg),
        raw_sha256: sha256(pairRaw),
        captured_at: new Date().toISOString(),
        camera: { make: 'Canon', model: 'EOS 6D' },
        sequence_number: 3,
        gps: { latitude: 43.7, longitude: 7.42 },
        integrity: { app_integrity: 'verified', hardware_backed_key: true, jailbreak_indicators: [] },
      });
      const attestation = await call('POST', '/capture/attestation', { token: a.token, json: { attestation: jws } });
      expect(attestation.status).toBe(201);
      const attestationId: string = attestation.body.attestation_id;

      // The photo without its RAW is not what the device signed: the API's 422, nothing stored.
      await t.settled();
      const events = await t.eventCount();
      const blobs = blobCount(t);
      const mismatch = await postUpload(t.url, cookie, [photo('pier.jpg', pairJpeg)], { csrf_token: csrf, attestation_id: attestationId });
      expect(mismatch.status).toBe(422);
      expect(alertOf(mismatch.text)).toContain('The uploaded files do not match the attestation (&quot;Camera RAW file&quot; differs).');
      expect(alertOf(mismatch.text)).not.toMatch(API_PART_WORDS);
      expect(await t.eventCount()).toBe(events);
      expect(blobCount(t)).toBe(blobs);

      const sent = await postUpload(t.url, cookie, pairParts('pier.jpg'), { csrf_token: csrf, attestation_id: attestationId });
      expect(sent.status).toBe(303);
      const id = sent.location!.split('/').at(-1);
      const made = (await call('GET', `/v1/verifications/${id}`, { token: a.token })).body;
      expect(made).toMatchObject({ verification_mode: 'raw_pair', attestation_validated: true, sequence_number: 3, capture_gps_latitude: 43.7, security_score: attestation.body.security_score });

      // Single use, as through the API.
      const again = await postUpload(t.url, cookie, pairParts('pier.jpg'), { csrf_token: csrf, attestation_id: attestationId });
      const apiAgain = await apiUpload(t.url, a.token, pairParts('pier.jpg'), { attestation_id: attestationId });
      expect([again.status, apiAgain.status, apiAgain.body.detail.error_code]).toEqual([400, 400, 'ATTESTATION_NOT_FOUND']);
      expect(alertOf(again.text)).toBe(pageWords(apiAgain.body.detail));
    });

    it('says beforehand that a pair past the Free plan’s quota would be refused, refuses it with 402 and the words, and still takes an image alone', async () => {
      const free = await registerAccount(call);
      for (let i = 0; i < 5; i++) expect((await apiUpload(t.url, free.token, pairParts(`pair-${i}.jpg`))).status).toBe(201);
      const { cookie, csrf } = await signIn(t.url, free.email, free.password);
      const before = await appRequest(t.url, 'GET', '/app/upload', { cookie });
      expect(quotaOf(before.text)).toEqual({ used: 5, included: 5, left: 0 });
      expect(before.text).toContain('data-next-pair="refused"');
      expect(before.text).toContain('Your next pair would be refused: the plan’s included pairs are used. An image alone can still be uploaded.');

      await t.settled();
      const events = await t.eventCount();
      const blobs = blobCount(t);
      const api = await apiUpload(t.url, free.token, pairParts('one-more.jpg'));
      expect(api.status).toBe(402);
      const refused = await postUpload(t.url, cookie, pairParts('one-more.jpg'), { csrf_token: csrf });
      expect(refused.status).toBe(402);
      expect(alertOf(refused.text)).toBe(escapeHtml(`${api.body.detail.message} ${api.body.detail.suggestion}`));
      expect(await t.eventCount()).toBe(events);
      expect(blobCount(t)).toBe(blobs);
      const usage = (await call('GET', `/v1/accounts/${free.account.id}/usage`, { token: free.token })).body;
      expect(usage).toMatchObject({ included_used: 5, overage_count: 0 });

      const alone = await postUpload(t.url, cookie, [photo('still-free.webp')], { csrf_token: csrf });
      expect(alone.status).toBe(303);
    });
  });
}
