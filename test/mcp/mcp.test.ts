import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newDevice, signAttestation } from '../support/capture.js';
import { databaseTargets } from '../support/databases.js';
import { callTool, connectMcp, inline, type ToolOutcome } from '../support/mcp.js';
import { client, registerAccount } from '../support/service.js';
import { serviceSuite } from '../support/suite.js';

const fixtures = path.resolve(import.meta.dirname, '../../../shared/fixtures');
const webp = fs.readFileSync(path.join(fixtures, 'images/rs_sample1.webp'));
const c2paJpeg = fs.readFileSync(path.join(fixtures, 'c2pa/pt_adobe-20220124-C.jpg'));
const raw = fs.readFileSync(path.join(fixtures, 'pairs/canon_eos_6d_dng/canon_eos_6d.dng'));
const jpeg = fs.readFileSync(path.join(fixtures, 'pairs/canon_eos_6d_dng/canon_eos_6d.preview.jpg'));

const REQUIRED_TOOLS = [
  'verify_image',
  'verify_pair',
  'get_verification',
  'list_verifications',
  'get_share',
  'share_verification',
  'unshare_verification',
  'get_account_usage',
  'get_upgrade_link',
  'create_upload',
];

function expectToolError(outcome: ToolOutcome, code: string) {
  expect(outcome.result.isError, JSON.stringify(outcome.result)).toBe(true);
  expect(outcome.error?.error_code).toBe(code);
  expect(outcome.error?.message).toEqual(expect.any(String));
  expect(outcome.error?.suggestion, `${code} carries a suggestion`).toEqual(expect.any(String));
}

async function apiKey(call: ReturnType<typeof client>, token: string, accountId: string, scope = 'full'): Promise<string> {
  const res = await call('POST', '/v1/apikeys/', { token, json: { account_id: accountId, scope } });
  if (res.status !== 201) throw new Error(`key creation failed: ${res.status}`);
  return res.body.raw_key;
}

for (const target of databaseTargets) {
  describe(`MCP server at /mcp on ${target.name}`, () => {
    const { t, call, newAccount } = serviceSuite(target, { UPGRADE_URL: 'https://billing.example.eu/upgrade', MCP_INLINE_MAX_BYTES: String(420 * 1024) });
    const owner = newAccount({ plan: 'basic' });
    let ownerKey: string;
    let agent: Client;
    let keyless: Client;
    beforeAll(async () => {
      ownerKey = await apiKey(call, owner.token, owner.account.id);
      agent = await connectMcp(t.url, ownerKey);
      keyless = await connectMcp(t.url);
    }, 120_000);
    afterAll(async () => {
      await agent?.close();
      await keyless?.close();
    });

    it('initializes and lists every tool with valid JSON Schemas for input and output', async () => {
      expect(agent.getServerVersion()?.name).toBe('photoverify');
      expect(agent.getServerCapabilities()?.tools).toBeDefined();
      const { tools } = await agent.listTools();
      expect(tools.map((tool) => tool.name)).toEqual(expect.arrayContaining(REQUIRED_TOOLS));
      const ajv = new Ajv2020({ strict: true, validateFormats: false, allErrors: true });
      for (const tool of tools) {
        expect(tool.description, tool.name).toBeTruthy();
        for (const [kind, schema] of [['input', tool.inputSchema], ['output', tool.outputSchema]] as const) {
          expect(schema, `${tool.name} ${kind}Schema`).toBeDefined();
          expect(schema!.type, `${tool.name} ${kind}Schema is an object schema`).toBe('object');
          expect(ajv.validateSchema(schema!), `${tool.name} ${kind}Schema: ${ajv.errorsText(ajv.errors)}`).toBe(true);
          expect(() => ajv.compile(schema!), `${tool.name} ${kind}Schema compiles`).not.toThrow();
        }
      }
      // Keyless callers see the same list (what they may call is decided per call).
      expect((await keyless.listTools()).tools.map((tool) => tool.name).sort()).toEqual(tools.map((tool) => tool.name).sort());
      // Read-only tools say so.
      const byName = new Map(tools.map((tool) => [tool.name, tool]));
      expect(byName.get('get_verification')?.annotations?.readOnlyHint).toBe(true);
      expect(byName.get('verify_pair')?.annotations?.readOnlyHint).toBe(false);
      expect(byName.get('unshare_verification')?.annotations?.destructiveHint).toBe(true);
      // docs/mcp.md lists exactly the tools served.
      const doc = fs.readFileSync(path.resolve(import.meta.dirname, '../../docs/mcp.md'), 'utf8');
      const documented = [...doc.matchAll(/^\| `([a-z_]+)` \|/gm)].map((m) => m[1]).sort();
      expect(documented).toEqual(tools.map((tool) => tool.name).sort());
    });

    it('verifies the content credentials of one image with a key: structured output and a text summary, free of quota', async () => {
      const outcome = await callTool(agent, 'verify_image', { image: inline('adobe-C.jpg', c2paJpeg), wait_seconds: 300 });
      expect(outcome.result.isError).toBeFalsy();
      expect(outcome.output).toMatchObject({ status: 'completed', done: true, verification: { verification_mode: 'image_only', name: 'adobe-C.jpg', account_id: owner.account.id } });
      expect(outcome.output.anonymous_user_id).toBeUndefined();
      expect(outcome.output.next_step).toBeUndefined();
      expect(outcome.output.verification.verdict).toEqual(expect.any(String));
      const text = outcome.result.content[0];
      expect(text?.type === 'text' && text.text).toContain(outcome.output.verification_id);
      // The same record REST serves.
      const rest = await call('GET', `/v1/verifications/${outcome.output.verification_id}`, { apiKey: ownerKey });
      expect(rest.body.verdict).toBe(outcome.output.verification.verdict);
      expect((await callTool(agent, 'get_account_usage', {})).output.included_used).toBe(0);
    });

    it('verifies a RAW+JPEG pair with progress notifications, and returns the id with polling guidance when the wait runs out', async () => {
      // Hold the workflow start so the verification is certainly still queued while the tool waits.
      const workflows = t.service.deps.workflows;
      const start = workflows.start.bind(workflows);
      let release!: () => void;
      const gate = new Promise<void>((resolve) => (release = resolve));
      const held: Promise<void>[] = [];
      workflows.start = async (...args) => {
        held.push(gate.then(() => start(...args)));
      };
      let outcome: ToolOutcome;
      try {
        outcome = await callTool(agent, 'verify_pair', { image: inline('pair.jpg', jpeg), raw: inline('pair.dng', raw), wait_seconds: 3 });
      } finally {
        workflows.start = start;
        release();
        await Promise.all(held);
      }
      expect(outcome.result.isError).toBeFalsy();
      expect(outcome.output).toMatchObject({ status: 'queued', done: false, verification: { verification_mode: 'raw_pair' } });
      expect(outcome.output.next_step).toMatch(/get_verification.*20 seconds/);
      expect(outcome.progress.length).toBeGreaterThanOrEqual(2);
      const values = outcome.progress.map((p) => p.progress);
      expect(values).toEqual([...values].sort((a, b) => a - b));
      expect(new Set(values).size).toBe(values.length);
      expect(outcome.progress[0]).toMatchObject({ total: 3, message: expect.stringContaining(outcome.output.verification_id) });

      // Polling as told: get_verification gives the evidence and a plain-words summary.
      const id = outcome.output.verification_id;
      await t.settled();
      const read = await callTool(agent, 'get_verification', { verification_id: id });
      expect(read.output.verification).toMatchObject({ id, status: 'completed', verification_mode: 'raw_pair' });
      expect(read.output.verification.results.length).toBeGreaterThan(3);
      expect(read.output.summary).toContain(id);
      expect(read.output.summary).toMatch(/Verified|Provisional|Unrated|Flagged|Provenance/);
      // A pair counts toward the quota.
      const usage = await callTool(agent, 'get_account_usage', {});
      expect(usage.output).toMatchObject({ plan: 'basic', included: 25, included_used: 1, included_remaining: 24, overage_count: 0 });
      expect(usage.result.content[0]).toMatchObject({ type: 'text', text: expect.stringContaining('1 of 25') });
    });

    it('waits for a pair and reports progress while the analysis runs', async () => {
      const outcome = await callTool(agent, 'verify_pair', { image: inline('pair2.jpg', jpeg), raw: inline('pair2.dng', raw), wait_seconds: 600 });
      expect(outcome.output).toMatchObject({ done: true, status: 'completed' });
      expect(outcome.progress.length).toBeGreaterThanOrEqual(1);
      expect(outcome.output.summary).not.toMatch(/every 20 seconds/);
    });

    it('takes the attestation_id of the capture flow (same key), and refuses a mismatched or foreign one', async () => {
      const hex = (bytes: Buffer) => crypto.createHash('sha256').update(bytes).digest('hex');
      const attestFor = async (imageSha256: string) => {
        const challenge = await call('POST', '/capture/challenge', { apiKey: ownerKey });
        const payload = {
          v: 1,
          nonce: challenge.body.nonce,
          image_sha256: imageSha256,
          raw_sha256: hex(raw),
          captured_at: new Date().toISOString(),
          device: { model: 'Pixel 9', os: 'Android 15', app_version: '2.1.0' },
          camera: { make: 'Canon', model: 'EOS 6D' },
          sequence_number: 3,
          gps: null,
          integrity: { app_integrity: 'verified', hardware_backed_key: true, jailbreak_indicators: [] },
        };
        const attested = await call('POST', '/capture/attestation', { apiKey: ownerKey, json: { attestation: await signAttestation(await newDevice(), payload) } });
        expect(attested.status, JSON.stringify(attested.body)).toBe(201);
        return attested.body.attestation_id as string;
      };
      const mismatched = await callTool(agent, 'verify_pair', { image: inline('att.jpg', jpeg), raw: inline('att.dng', raw), attestation_id: await attestFor(hex(webp)), wait_seconds: 0 });
      expectToolError(mismatched, 'HASH_MISMATCH');
      const id = await attestFor(hex(jpeg));
      const other = await registerAccount(call);
      const stranger = await connectMcp(t.url, await apiKey(call, other.token, other.account.id));
      try {
        expectToolError(await callTool(stranger, 'verify_pair', { image: inline('att.jpg', jpeg), raw: inline('att.dng', raw), attestation_id: id, wait_seconds: 0 }), 'ATTESTATION_NOT_FOUND');
      } finally {
        await stranger.close();
      }
      const outcome = await callTool(agent, 'verify_pair', { image: inline('att.jpg', jpeg), raw: inline('att.dng', raw), attestation_id: id, wait_seconds: 0 });
      expect(outcome.result.isError, JSON.stringify(outcome.error)).toBeFalsy();
      expect(outcome.output.security_score).toEqual(expect.any(Number));
      expect(outcome.output.verification).toMatchObject({ attestation_validated: true, sequence_number: 3 });
      await t.settled();
    });

    it('lists verifications with the REST filters, and refuses invalid ones as VALIDATION_ERROR', async () => {
      const listed = await callTool(agent, 'list_verifications', { status: 'completed', sort_order: 'asc' });
      expect(listed.output.total).toBe(4);
      expect(listed.output.items.map((v: { name: string }) => v.name)).toEqual(['adobe-C.jpg', 'pair.jpg', 'pair2.jpg', 'att.jpg']);
      expect(listed.output.items.every((v: { account_id: string }) => v.account_id === owner.account.id)).toBe(true);
      expectToolError(await callTool(agent, 'list_verifications', { status: 'done' }), 'VALIDATION_ERROR');
      const bad = await callTool(agent, 'list_verifications', { size: 500 });
      expectToolError(bad, 'VALIDATION_ERROR');
      expect(bad.error?.details.issues[0].loc).toEqual(['body', 'size']);
      expectToolError(await callTool(agent, 'get_verification', { verification_id: 'nope' }), 'VALIDATION_ERROR');
      expectToolError(await callTool(agent, 'verify_image', { image: { filename: 'x.jpg' } }), 'VALIDATION_ERROR');
      expectToolError(await callTool(agent, 'verify_image', { image: inline('x.txt', Buffer.from('not an image at all')) }), 'UNSUPPORTED_FORMAT');
    });

    it('shares, reads the share and unshares through the same use cases as REST', async () => {
      const id = (await callTool(agent, 'list_verifications', { size: 1 })).output.items[0].id;
      expectToolError(await callTool(agent, 'get_share', { verification_id: id }), 'NOT_SHARED');
      const shared = await callTool(agent, 'share_verification', { verification_id: id, access_type: 'anyone_with_link' });
      expect(shared.output).toMatchObject({ verification_id: id, access_type: 'anyone_with_link', invited_emails: [] });
      const page = `${t.url}${new URL(shared.output.share_url).pathname}`;
      expect((await fetch(page)).status).toBe(200);
      expect((await callTool(agent, 'get_share', { verification_id: id })).output.share_url).toBe(shared.output.share_url);
      expect((await call('GET', `/v1/verifications/${id}/share`, { apiKey: ownerKey })).body.share_url).toBe(shared.output.share_url);
      expectToolError(await callTool(agent, 'share_verification', { verification_id: id, access_type: 'public' }), 'VALIDATION_ERROR');
      const removed = await callTool(agent, 'unshare_verification', { verification_id: id });
      expect(removed.output).toEqual({ verification_id: id, shared: false });
      expect((await fetch(page)).status).toBe(404);
    });

    it("refuses another account's ids as not found, and read-scoped keys on tools that change something", async () => {
      const id = (await callTool(agent, 'list_verifications', { size: 1 })).output.items[0].id;
      const other = await registerAccount(call);
      const otherKey = await apiKey(call, other.token, other.account.id);
      const stranger = await connectMcp(t.url, otherKey);
      try {
        const events = await t.eventCount();
        expectToolError(await callTool(stranger, 'get_verification', { verification_id: id }), 'VERIFICATION_NOT_FOUND');
        expectToolError(await callTool(stranger, 'share_verification', { verification_id: id, access_type: 'anyone_with_link' }), 'VERIFICATION_NOT_FOUND');
        expectToolError(await callTool(stranger, 'get_share', { verification_id: id }), 'VERIFICATION_NOT_FOUND');
        expectToolError(await callTool(stranger, 'unshare_verification', { verification_id: id }), 'VERIFICATION_NOT_FOUND');
        expect((await callTool(stranger, 'list_verifications', {})).output.total).toBe(0);
        expect(await t.eventCount()).toBe(events);
      } finally {
        await stranger.close();
      }
      const readKey = await apiKey(call, owner.token, owner.account.id, 'read');
      const reader = await connectMcp(t.url, readKey);
      try {
        expect((await callTool(reader, 'get_verification', { verification_id: id })).output.verification.id).toBe(id);
        expectToolError(await callTool(reader, 'share_verification', { verification_id: id, access_type: 'restricted' }), 'ACCESS_DENIED');
        expectToolError(await callTool(reader, 'verify_image', { image: inline('a.webp', webp) }), 'ACCESS_DENIED');
      } finally {
        await reader.close();
      }
    });

    it('gives the plans and the upgrade link with the account and the next plan', async () => {
      const outcome = await callTool(agent, 'get_upgrade_link', {});
      expect(outcome.output).toMatchObject({ current_plan: 'basic', suggested_plan: 'professional', currency: 'EUR' });
      const url = new URL(outcome.output.upgrade_url);
      expect(`${url.origin}${url.pathname}`).toBe('https://billing.example.eu/upgrade');
      expect(Object.fromEntries(url.searchParams)).toEqual({ account_id: owner.account.id, plan: 'professional' });
      expect(outcome.output.plans).toContainEqual({ plan: 'professional', monthly_price: 49.95, included_verifications: 500, psd_exports_included: 50 });
      const chosen = await callTool(agent, 'get_upgrade_link', { plan: 'enterprise' });
      expect(new URL(chosen.output.upgrade_url).searchParams.get('plan')).toBe('enterprise');
      expectToolError(await callTool(agent, 'get_upgrade_link', { plan: 'gold' }), 'VALIDATION_ERROR');
      // Without UPGRADE_URL there is no link to make up: the operator changes plans.
      const configured = t.service.deps.config.UPGRADE_URL;
      t.service.deps.config.UPGRADE_URL = undefined;
      try {
        const none = await callTool(agent, 'get_upgrade_link', {});
        expect(none.output.upgrade_url).toBeNull();
        expect(none.output.how_to_upgrade).toMatch(/operator/);
      } finally {
        t.service.deps.config.UPGRADE_URL = configured;
      }
    });

    it('takes large files through a pre-signed upload, once, for the account that created it', async () => {
      // Over the inline limit of this service (420 KiB): refused inline, with the way round it.
      const tooLarge = await callTool(agent, 'verify_pair', { image: inline('big.jpg', jpeg), raw: inline('big.dng', Buffer.concat([raw, Buffer.alloc(100 * 1024)])) });
      expectToolError(tooLarge, 'PAYLOAD_TOO_LARGE');
      expect(tooLarge.error?.suggestion).toContain('create_upload');

      expectToolError(await callTool(agent, 'create_upload', {}), 'VALIDATION_ERROR');
      expectToolError(await callTool(agent, 'create_upload', { filename: 'x'.repeat(256) }), 'VALIDATION_ERROR');
      const rawTicket = (await callTool(agent, 'create_upload', { filename: 'big.dng' })).output;
      const imageTicket = (await callTool(agent, 'create_upload', { filename: 'big.jpg' })).output;
      expect(rawTicket).toMatchObject({ method: 'PUT', max_bytes: expect.any(Number), upload_url: expect.stringContaining('/uploads/') });
      for (const [ticket, bytes] of [[rawTicket, raw], [imageTicket, jpeg]] as const) {
        const put = await fetch(ticket.upload_url, { method: 'PUT', headers: { 'content-type': 'application/octet-stream' }, body: new Uint8Array(bytes) });
        expect(put.status).toBe(200);
        expect((await put.json()).size).toBe(bytes.length);
      }
      const again = await fetch(rawTicket.upload_url, { method: 'PUT', body: new Uint8Array(raw) });
      expect(again.status).toBe(409);
      expect((await again.json()).detail.error_code).toBe('UPLOAD_ALREADY_RECEIVED');

      // Another account cannot verify from these ids; neither can a keyless caller.
      const other = await registerAccount(call);
      const stranger = await connectMcp(t.url, await apiKey(call, other.token, other.account.id));
      try {
        expectToolError(await callTool(stranger, 'verify_pair', { image: { upload_id: imageTicket.upload_id }, raw: { upload_id: rawTicket.upload_id } }), 'UPLOAD_NOT_FOUND');
      } finally {
        await stranger.close();
      }
      expectToolError(await callTool(keyless, 'verify_image', { image: { upload_id: imageTicket.upload_id } }), 'UPLOAD_NOT_FOUND');

      const outcome = await callTool(agent, 'verify_pair', { image: { upload_id: imageTicket.upload_id }, raw: { upload_id: rawTicket.upload_id }, wait_seconds: 0 });
      expect(outcome.result.isError).toBeFalsy();
      const id = outcome.output.verification_id;
      await t.settled();
      const view = (await callTool(agent, 'get_verification', { verification_id: id })).output.verification;
      expect(view).toMatchObject({ status: 'completed', name: 'big.jpg', verification_mode: 'raw_pair' });
      const sha256 = (bytes: Buffer) => `sha256:${crypto.createHash('sha256').update(bytes).digest('hex')}`;
      expect(view.raw_photo_hash).toBe(sha256(raw));
      expect(view.image_photo_hash).toBe(sha256(jpeg));
      // Used once: the ids are spent.
      expectToolError(await callTool(agent, 'verify_image', { image: { upload_id: imageTicket.upload_id } }), 'UPLOAD_NOT_FOUND');
      // Forged, and tampered ids.
      expectToolError(await callTool(agent, 'verify_image', { image: { upload_id: `up_${'A'.repeat(40)}.${'B'.repeat(43)}` } }), 'UPLOAD_NOT_FOUND');
      const forged = await fetch(`${t.url}/uploads/up_${'A'.repeat(40)}.${'B'.repeat(43)}`, { method: 'PUT', body: new Uint8Array(jpeg) });
      expect(forged.status).toBe(404);
      // A JSON body is not a file.
      const ticket = (await callTool(agent, 'create_upload', { filename: 'x.jpg' })).output;
      const json = await fetch(ticket.upload_url, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: '{}' });
      expect(json.status).toBe(422);
    });

    it('expires upload ids after 1 hour', async () => {
      const ticket = (await callTool(agent, 'create_upload', { filename: 'late.jpg' })).output;
      const realNow = t.service.deps.now;
      t.service.deps.now = () => new Date(Date.now() + 3601_000);
      try {
        const late = await fetch(ticket.upload_url, { method: 'PUT', body: new Uint8Array(jpeg) });
        expect(late.status).toBe(410);
        expect((await late.json()).detail.error_code).toBe('UPLOAD_EXPIRED');
        expectToolError(await callTool(agent, 'verify_image', { image: { upload_id: ticket.upload_id } }), 'UPLOAD_EXPIRED');
      } finally {
        t.service.deps.now = realNow;
      }
    });

    it('lets a keyless agent check an image and read only its own anonymous verifications', async () => {
      const first = await callTool(keyless, 'verify_image', { image: inline('anon.webp', webp), wait_seconds: 300 });
      expect(first.output).toMatchObject({ done: true, verification: { verification_mode: 'image_only' } });
      const anonymousUserId = first.output.anonymous_user_id;
      expect(anonymousUserId).toMatch(/^anon_[A-Za-z0-9_-]{43}$/);
      const id = first.output.verification_id;

      const own = await callTool(keyless, 'get_verification', { verification_id: id, anonymous_user_id: anonymousUserId });
      expect(own.output.verification.id).toBe(id);
      expect((await callTool(keyless, 'list_verifications', { anonymous_user_id: anonymousUserId })).output.total).toBe(1);
      expectToolError(await callTool(keyless, 'get_verification', { verification_id: id }), 'AUTHENTICATION_REQUIRED');
      expectToolError(await callTool(keyless, 'get_verification', { verification_id: id, anonymous_user_id: `anon_${'A'.repeat(43)}` }), 'VERIFICATION_NOT_FOUND');
      expectToolError(await callTool(keyless, 'get_verification', { verification_id: id, anonymous_user_id: 'guess' }), 'INVALID_CREDENTIALS');
      // An account's key does not reach it, and its anonymous_user_id is ignored when a key is sent.
      expectToolError(await callTool(agent, 'get_verification', { verification_id: id, anonymous_user_id: anonymousUserId }), 'VERIFICATION_NOT_FOUND');
      // Anonymous verifications cannot be shared (spec 3.4).
      expectToolError(await callTool(keyless, 'share_verification', { verification_id: id, access_type: 'anyone_with_link', anonymous_user_id: anonymousUserId }), 'ACCESS_DENIED');
      // Account tools need a key.
      for (const name of ['get_account_usage', 'get_upgrade_link']) expectToolError(await callTool(keyless, name, {}), 'AUTHENTICATION_REQUIRED');
    });

    it('refuses invalid credentials with 401 before any protocol exchange, and foreign Host headers with 403', async () => {
      const init = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } };
      const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
      const bad = await fetch(`${t.url}/mcp`, { method: 'POST', headers: { ...headers, authorization: 'Bearer pv_not-a-real-key' }, body: JSON.stringify(init) });
      expect(bad.status).toBe(401);
      expect(bad.headers.get('www-authenticate')).toBe('Bearer');
      expect((await bad.json()).detail.error_code).toBe('INVALID_API_KEY');
      const http = await import('node:http');
      const status = await new Promise<number>((resolve, reject) => {
        const req = http.request(`${t.url}/mcp`, { method: 'POST', headers: { ...headers, host: 'evil.example' } }, (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        });
        req.on('error', reject);
        req.end(JSON.stringify(init));
      });
      expect(status).toBe(403);
      expect((await fetch(`${t.url}/mcp`)).status).toBe(405);
      // REST itself requires credentials now: the keyless tier lives here only.
      const form = new FormData();
      form.append('image', new Blob([new Uint8Array(webp)]), 'a.webp');
      const rest = await fetch(`${t.url}/v1/verifications/`, { method: 'POST', body: form });
      expect(rest.status).toBe(401);
      expect((await rest.json()).detail.error_code).toBe('AUTHENTICATION_REQUIRED');
    });
  });

  describe(`MCP keyless limits on ${target.name}`, () => {
    const { t } = serviceSuite(target, { ANONYMOUS_UPLOADS_PER_HOUR: '2' });

    it('rate-limits keyless verifications per address, and keyless uploads once the limit is reached', async () => {
      const keyless = await connectMcp(t.url);
      try {
        const ticket = await callTool(keyless, 'create_upload', { filename: 'a.webp' });
        expect(ticket.result.isError).toBeFalsy();
        for (let i = 0; i < 2; i++) expect((await callTool(keyless, 'verify_image', { image: inline('a.webp', webp), wait_seconds: 0 })).result.isError).toBeFalsy();
        await t.settled();
        const events = await t.eventCount();
        const limited = await callTool(keyless, 'verify_image', { image: inline('a.webp', webp), wait_seconds: 0 });
        expectToolError(limited, 'RATE_LIMIT_EXCEEDED');
        expect(limited.error?.details.retry_after_seconds).toBeGreaterThan(0);
        expectToolError(await callTool(keyless, 'verify_pair', { image: inline('a.jpg', jpeg), raw: inline('a.dng', raw) }), 'RATE_LIMIT_EXCEEDED');
        expectToolError(await callTool(keyless, 'create_upload', { filename: 'b.webp' }), 'RATE_LIMIT_EXCEEDED');
        expect(await t.eventCount()).toBe(events);
      } finally {
        await keyless.close();
      }
    });
  });
}
