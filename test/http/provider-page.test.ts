import { rawExtensions } from '../../src/analysis/types.js';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { CAPTURE_CALLS_PER_ADDRESS_PER_HOUR } from '../../src/features/requests/provider-page-routes.js';
import { newDevice, signAttestation } from '../support/capture.js';
import { databaseTargets } from '../support/databases.js';
import { serviceSuite } from '../support/suite.js';

/**
 * The provider page over real HTTP (issue 24, must-work 2), on each database: a request's url
 * opens the page; the form's POST (the 30D pair, multipart) becomes a submission and answers 303
 * to the submission's page, whose status URL and result follow the verification; a full, closed
 * or unknown request, and a capture request without its attestation id, answer HTML pages with
 * the reason. Nothing of the account beyond its name is on any page.
 */
const pairDir = path.resolve(import.meta.dirname, '../../../shared/fixtures/pairs/canon_eos_30d_cr2');
const photo = fs.readFileSync(path.join(pairDir, 'IMG_5952.camera-preview.jpg'));
const raw = fs.readFileSync(path.join(pairDir, 'IMG_5952.CR2'));

function pairForm(fields: Record<string, string> = {}): FormData {
  const form = new FormData();
  form.append('image', new Blob([new Uint8Array(photo)]), 'IMG_5952.jpg');
  form.append('raw', new Blob([new Uint8Array(raw)]), 'IMG_5952.CR2');
  for (const [name, value] of Object.entries(fields)) form.append(name, value);
  return form;
}

for (const target of databaseTargets) describe(`The provider page on ${target.name}`, () => {
  // Client addresses come from X-Forwarded-For (the rate limits per address are keyed by them).
  const { t, call, newAccount } = serviceSuite(target, { MAX_UPLOAD_BYTES: String(16 * 1024 * 1024), TRUST_PROXY: 'loopback' });
  const owner = newAccount();

  async function request(body: Record<string, unknown> = {}) {
    const res = await call('POST', '/v1/requests', { token: owner.token, json: { subject: 'Sunrise <over> the harbour', instructions: 'The RAW too.', expires_at: new Date(Date.now() + 86_400_000).toISOString(), ...body } });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return { id: res.body.id as string, path: new URL(res.body.url).pathname };
  }
  const get = (p: string) => fetch(`${t.url}${p}`, { redirect: 'manual' });
  const post = (p: string, form: FormData) => fetch(`${t.url}${p}`, { method: 'POST', body: form, redirect: 'manual', headers: { 'x-forwarded-for': '203.0.113.7' } });

  function expectPrivate(html: string) {
    expect(html).not.toContain(owner.email);
    expect(html).not.toContain(owner.account.id);
    expect(html).not.toContain(owner.user.id);
  }

  it('opens, takes the 30D pair, leads to the submission page, follows it to the result; then the full request accepts nothing', async () => {
    const { id, path: page } = await request();
    const opened = await get(page);
    expect(opened.status).toBe(200);
    expect(opened.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(opened.headers.get('content-security-policy')).toContain("form-action 'self'");
    expect(opened.headers.get('x-robots-tag')).toContain('noindex');
    const html = await opened.text();
    expect(html).toContain('<bdi data-field="subject">Sunrise &lt;over&gt; the harbour</bdi>');
    expect(html).toMatch(/<bdi data-field="requester">Account \d+<\/bdi>/);
    expect(html).toContain(`action="${page}"`);
    expectPrivate(html);

    const sent = await post(page, pairForm());
    expect(sent.status, await sent.clone().text()).toBe(303);
    const location = sent.headers.get('location')!;
    expect(location).toMatch(new RegExp(`^${page}/submissions/[0-9a-f-]{36}$`));
    const verificationId = location.split('/').at(-1)!;

    const listed = await call('GET', `/v1/verifications/?request_id=${id}`, { token: owner.token });
    expect(listed.body.items.map((v: { id: string }) => v.id)).toEqual([verificationId]);

    const status = await get(`${location}/status`);
    expect(status.status).toBe(200);
    expect(['pending', 'queued', 'in_progress', 'completed']).toContain((await status.json()).status);

    await t.settled();
    expect(await (await get(`${location}/status`)).json()).toEqual({ status: 'completed' });
    const result = await (await get(location)).text();
    expect(result).toContain('data-outcome="verified">Verified</p>');
    expect(result).not.toContain('data-status-url');
    expectPrivate(result);

    // max_submissions 1: full now.
    const full = await (await get(page)).text();
    expect(full).toContain('data-state="full"');
    expect(full).not.toContain('<form');
    const refused = await post(page, pairForm());
    expect(refused.status).toBe(409);
    expect(refused.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(await refused.text()).toMatch(/<p id="form-error" class="form-error">[^<]+<\/p>/);
  }, 300_000);

  it('share_with_provider: the submission is shared by link for the requester, and its page links the report once completed', async () => {
    const { path: page } = await request({ share_with_provider: true });
    const sent = await post(page, pairForm());
    expect(sent.status).toBe(303);
    const location = sent.headers.get('location')!;
    const verificationId = location.split('/').at(-1)!;
    const share = await call('GET', `/v1/verifications/${verificationId}/share`, { token: owner.token });
    expect(share.status, JSON.stringify(share.body)).toBe(200);
    expect(share.body.access_type).toBe('anyone_with_link');
    await t.settled();
    const html = await (await get(location)).text();
    expect(html).toContain(`<a href="${share.body.share_url}">open the verification report</a>`);
    expect(html).not.toContain('data-outcome="verified"');
    expect((await get(new URL(share.body.share_url).pathname)).status).toBe(200);
    // The requester removes the share: the page falls back to the short result.
    expect((await call('DELETE', `/v1/verifications/${verificationId}/share`, { token: owner.token })).status).toBe(200);
    expect(await (await get(location)).text()).toContain('data-outcome="verified">Verified</p>');
  }, 300_000);

  it('capture: the provider, without an account, gets a challenge and attests through the link, and uploads the attested pair', async () => {
    const { id, path: page } = await request({ mode: 'capture' });
    const html = await (await get(page)).text();
    expect(html).toContain(`accept="${rawExtensions.map((e) => `.${e}`).join(',')}"`);
    expect(html).toContain('Canon CRW');
    expect(html).toContain(`<code data-url="challenge">POST ${t.service.deps.config.PUBLIC_BASE_URL}${page}/capture/challenge</code>`);
    const postJson = (p: string, body?: unknown) =>
      fetch(`${t.url}${p}`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-forwarded-for': '203.0.113.8' }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
    const challenge = await postJson(`${page}/capture/challenge`);
    expect(challenge.status).toBe(201);
    const { nonce } = await challenge.json();
    const device = await newDevice();
    const sha256 = (b: Buffer) => crypto.createHash('sha256').update(b).digest('hex');
    const jws = await signAttestation(device, {
      v: 1,
      nonce,
      image_sha256: sha256(photo),
      raw_sha256: sha256(raw),
      captured_at: new Date().toISOString(),
      camera: { make: 'Canon', model: 'Canon EOS 30D' },
      sequence_number: 1,
      gps: null,
      integrity: { app_integrity: 'verified', hardware_backed_key: true, jailbreak_indicators: [] },
    });
    const attested = await postJson(`${page}/capture/attestation`, { attestation: jws });
    expect(attested.status, await attested.clone().text()).toBe(201);
    const { attestation_id } = await attested.json();

    const sent = await post(page, pairForm({ attestation_id }));
    expect(sent.status, await sent.clone().text()).toBe(303);
    const verificationId = sent.headers.get('location')!.split('/').at(-1)!;
    await t.settled();
    const verification = await call('GET', `/v1/verifications/${verificationId}`, { token: owner.token });
    expect(verification.body.request_id).toBe(id);
    expect(verification.body.capture_verified).toBe(true);

    // Full now: the link issues no more challenges.
    const refused = await postJson(`${page}/capture/challenge`);
    expect(refused.status).toBe(409);
    expect((await refused.json()).detail.error_code).toBe('REQUEST_FULL');
    expect((await postJson(`/r/${'A'.repeat(43)}/capture/challenge`)).status).toBe(404);
  }, 300_000);

  it('an existing_original request issues no capture challenge and takes no attestation (409 REQUEST_NOT_CAPTURE), and records nothing', async () => {
    const { path: page } = await request();
    const before = await t.service.deps.store.headPosition();
    const postJson = (p: string, body?: unknown) =>
      fetch(`${t.url}${p}`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-forwarded-for': '203.0.113.9' }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
    for (const [p, body] of [[`${page}/capture/challenge`, undefined], [`${page}/capture/attestation`, { attestation: 'a.b.c' }]] as const) {
      const refused = await postJson(p, body);
      expect(refused.status, p).toBe(409);
      expect((await refused.json()).detail.error_code).toBe('REQUEST_NOT_CAPTURE');
    }
    // Nor through its upload form: an attestation_id sent with the files is refused, as the capture calls are.
    const uploaded = await post(page, pairForm({ attestation_id: crypto.randomUUID() }));
    expect(uploaded.status).toBe(409);
    expect(await uploaded.text()).toContain('takes no attestation');
    const appended = await t.service.deps.store.readAll({ after: before, limit: 100 });
    expect(appended.map((e) => e.type)).not.toContain('CaptureChallengeIssued');
    expect(appended.map((e) => e.type)).not.toContain('VerificationQueued');
  }, 120_000);

  it('limits capture calls per client address (a leaked link cannot flood the requester’s account)', async () => {
    const { path: page } = await request({ mode: 'capture' });
    const address = `192.0.2.${crypto.randomInt(1, 255)}`;
    const challenge = () => fetch(`${t.url}${page}/capture/challenge`, { method: 'POST', headers: { 'x-forwarded-for': address } });
    for (let i = 0; i < CAPTURE_CALLS_PER_ADDRESS_PER_HOUR; i++) expect((await challenge()).status).toBe(201);
    const limited = await challenge();
    expect(limited.status).toBe(429);
    expect((await limited.json()).detail.error_code).toBe('RATE_LIMIT_EXCEEDED');
    // Another address still gets one.
    expect((await fetch(`${t.url}${page}/capture/challenge`, { method: 'POST', headers: { 'x-forwarded-for': '192.0.2.254' } })).status).toBe(201);
  }, 300_000);

  it('answers an unknown link, a submission of another request and a malformed id with the same 404 (a page; JSON for the status)', async () => {
    const a = await request({ max_submissions: 2 });
    const b = await request();
    const sent = await post(a.path, pairForm());
    expect(sent.status).toBe(303);
    const verificationId = sent.headers.get('location')!.split('/').at(-1)!;
    const status = await get(`${b.path}/submissions/${verificationId}/status`);
    expect(status.status).toBe(404);
    expect((await status.json()).detail.error_code).toBe('REQUEST_NOT_FOUND');
    for (const p of [`/r/${'A'.repeat(43)}`, '/r/short', `${b.path}/submissions/${verificationId}`, `${a.path}/submissions/not-an-id`]) {
      const res = await get(p);
      expect(res.status, p).toBe(404);
      expect(res.headers.get('content-type'), p).toBe('text/html; charset=utf-8');
      expect(await res.text(), p).toContain('This link does not open a request');
    }
    await t.settled();
  }, 300_000);

  it('a closed request says so; a capture request shows how to attest and refuses an upload without the attestation id', async () => {
    const closed = await request();
    expect((await call('PATCH', `/v1/requests/${closed.id}`, { token: owner.token, json: { status: 'closed' } })).status).toBe(200);
    const closedPage = await (await get(closed.path)).text();
    expect(closedPage).toContain('data-state="closed"');
    expect(closedPage).not.toContain('<form');

    const capture = await request({ mode: 'capture' });
    const capturePage = await (await get(capture.path)).text();
    expect(capturePage).toMatch(/<code data-url="challenge">POST http[^<]*\/r\/[A-Za-z0-9_-]{43}\/capture\/challenge<\/code>/);
    expect(capturePage).toMatch(/name="attestation_id" required/);
    const refused = await post(capture.path, pairForm());
    expect(refused.status).toBe(422);
    expect(await refused.text()).toContain('attestation_id');
    const after = await call('GET', `/v1/requests/${capture.id}`, { token: owner.token });
    expect(after.body.submission_count).toBe(0);
  }, 300_000);
});
