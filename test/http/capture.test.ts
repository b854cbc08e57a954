import { execFile } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { base64url, calculateJwkThumbprint, CompactSign, exportJWK } from 'jose';
import { newDevice, signAttestation as sign, type Device } from '../support/capture.js';
import { beforeAll, describe, expect, it } from 'vitest';
import { redeemAttestation, validateAttestationForUpload } from '../../src/features/attestations/redeem.js';
import type { CommandContext } from '../../src/core/es/decider.js';
import { AppError } from '../../src/core/errors.js';
import { databaseTargets } from '../support/databases.js';
import { registerAccount } from '../support/service.js';
import { serviceSuite } from '../support/suite.js';
import { errorCatalogue } from '../../src/modules.js';
import { newCall } from '../../src/core/principal.js';

const FIXTURE_IMAGE = path.resolve(import.meta.dirname, '../../../shared/fixtures/images/exifr_olympus-em10_door-knocker.jpg');
const sha256 = (data: Buffer | string) => crypto.createHash('sha256').update(data).digest('hex');
const IMAGE = sha256('image bytes');
const RAW = sha256('raw bytes');

function payloadFor(nonce: string, overrides: Record<string, unknown> = {}) {
  return {
    v: 1,
    nonce,
    image_sha256: IMAGE,
    raw_sha256: RAW,
    captured_at: new Date().toISOString(),
    device: { model: 'Pixel 9', os: 'Android 15', app_version: '2.1.0' },
    camera: { make: 'Google', model: 'Pixel 9', module: 'back-wide' },
    sequence_number: 42,
    gps: { latitude: 52.52, longitude: 13.405, accuracy_m: 8 },
    integrity: { app_integrity: 'verified', hardware_backed_key: true, jailbreak_indicators: [] },
    ...overrides,
  };
}

const aCall = () => newCall(null, crypto.randomUUID(), '127.0.0.1');

for (const target of databaseTargets) {
  describe(`capture attestation on ${target.name}`, () => {
    const { t, call, newAccount } = serviceSuite(target);
    /** The capture routes require credentials: this account captures unless a test says otherwise. */
    const me = newAccount();
    let mine: string;
    beforeAll(async () => {
      mine = me.account.id;
    });

    const context = (accountId: string | null): CommandContext => ({
      accountId,
      actor: accountId ? { type: 'user', id: accountId } : { type: 'anonymous', id: 'anonymous' },
      correlationId: crypto.randomUUID(),
      causationId: crypto.randomUUID(),
      processingRegion: 'eu',
      now: t.service.deps.now(),
    });
    const redeem = (input: { attestationId: string; accountId: string | null; imageSha256?: string; rawSha256?: string | null; verificationId?: string }) =>
      redeemAttestation(t.service.deps, aCall(), {
        imageSha256: IMAGE,
        rawSha256: RAW,
        verificationId: crypto.randomUUID(),
        ...input,
      }, context(input.accountId));
    const challenge = async (token: string = me.token) => {
      const res = await call('POST', '/capture/challenge', { token });
      expect(res.status).toBe(201);
      return res.body.nonce as string;
    };
    const attest = async (device: Device, token: string = me.token, overrides: Record<string, unknown> = {}) => {
      const nonce = await challenge(token);
      const res = await call('POST', '/capture/attestation', { token, json: { attestation: await sign(device, payloadFor(nonce, overrides)) } });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      return res.body;
    };
    const expectRejected = async (promise: Promise<unknown>, code: string) => {
      const error = await promise.then(() => null, (e: unknown) => e);
      expect(error).toBeInstanceOf(AppError);
      expect((error as AppError).code).toBe(code);
      return error as AppError;
    };

    it('issues a challenge, accepts a signed attestation and yields its facts', async () => {
      const device = await newDevice();
      const challenged = await call('POST', '/capture/challenge', { token: me.token });
      expect(challenged.status).toBe(201);
      expect(challenged.body.nonce).toMatch(/^[A-Za-z0-9_-]{43}$/);
      const ttl = new Date(challenged.body.expires_at).getTime() - Date.now();
      expect(ttl).toBeGreaterThan(4 * 60_000);
      expect(ttl).toBeLessThanOrEqual(5 * 60_000);

      const jws = await sign(device, payloadFor(challenged.body.nonce));
      const res = await call('POST', '/capture/attestation', { token: me.token, json: { attestation: jws } });
      expect(res.status).toBe(201);
      expect(res.body).toEqual({
        attestation_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
        security_score: 1,
        integrity_score: 1,
        device_fingerprint_id: await calculateJwkThumbprint(device.publicJwk),
        camera_fingerprint_id: expect.stringMatching(/^[0-9a-f]{32}$/),
        jailbreak_indicators: [],
        expires_at: expect.any(String),
      });
      const row = await t.service.deps.knex('capture_attestations').where({ attestation_id: res.body.attestation_id }).first();
      expect(row).toMatchObject({ image_sha256: IMAGE, raw_sha256: RAW, account_id: mine, redeemed_at: null });
      // The log keeps the signed evidence, never the nonce in clear.
      const events = await t.service.deps.knex('events').where({ stream: `capture-${res.body.attestation_id}` }).orderBy('position');
      expect(events.map((e) => e.type)).toEqual(['CaptureChallengeIssued', 'CaptureAttested']);
      expect(JSON.stringify(events)).not.toContain(challenged.body.nonce);
      expect(events[1].data.jws).toBe(jws);
    });

    it('scores the reported integrity signals', async () => {
      const device = await newDevice();
      const body = await attest(device, undefined, {
        camera: null,
        gps: null,
        sequence_number: null,
        integrity: { app_integrity: 'unverified', hardware_backed_key: false, jailbreak_indicators: ['su_binary', 'magisk', 'su_binary'] },
      });
      // 0.6 (unverified) × 0.3 × 0.8 (two distinct indicators) = 0.144; × 0.7 software key = 0.1008
      expect(body).toMatchObject({ integrity_score: 0.144, security_score: 0.101, camera_fingerprint_id: null, jailbreak_indicators: ['magisk', 'su_binary'] });
      const facts = await redeem({ attestationId: body.attestation_id, accountId: mine });
      expect(facts).toEqual({
        security_score: 0.101,
        attestation_validated: true,
        device_fingerprint_id: body.device_fingerprint_id,
        camera_fingerprint_id: null,
        sequence_number: null,
        integrity_score: 0.144,
        jailbreak_indicators: ['magisk', 'su_binary'],
        capture_gps_latitude: null,
        capture_gps_longitude: null,
      });
    });

    it('redeems once: validation consumes nothing, a hash mismatch consumes nothing, a second verification is refused', async () => {
      const device = await newDevice();
      const { attestation_id: attestationId, camera_fingerprint_id } = await attest(device);

      const before = await t.eventCount();
      const checked = await validateAttestationForUpload(t.service.deps, { attestationId, accountId: mine, imageSha256: IMAGE, rawSha256: RAW });
      expect(checked).toMatchObject({ attestation_validated: true, sequence_number: 42, capture_gps_latitude: 52.52, capture_gps_longitude: 13.405, camera_fingerprint_id });
      const mismatch = await expectRejected(redeem({ attestationId, accountId: mine, imageSha256: sha256('other') }), 'HASH_MISMATCH');
      expect(errorCatalogue[mismatch.code]).toBe(422);
      expect(mismatch.details).toEqual({ mismatched: ['image'] });
      await expectRejected(redeem({ attestationId, accountId: mine, rawSha256: null }), 'HASH_MISMATCH');
      await expectRejected(validateAttestationForUpload(t.service.deps, { attestationId, accountId: mine, imageSha256: IMAGE, rawSha256: sha256('x') }), 'HASH_MISMATCH');
      expect(await t.eventCount()).toBe(before);

      const verificationId = crypto.randomUUID();
      const facts = await redeem({ attestationId, accountId: mine, imageSha256: IMAGE.toUpperCase(), verificationId });
      expect(facts).toEqual(checked);
      expect(await t.eventCount()).toBe(before + 1);
      const row = await t.service.deps.knex('capture_attestations').where({ attestation_id: attestationId }).first();
      expect(row.redeemed_by_verification_id).toBe(verificationId);

      // A retry of the same verification succeeds again without a new event.
      expect(await redeem({ attestationId, accountId: mine, verificationId })).toEqual(facts);
      const reused = await expectRejected(redeem({ attestationId, accountId: mine }), 'ATTESTATION_NOT_FOUND');
      expect(reused.message).toContain('already been used');
      await expectRejected(validateAttestationForUpload(t.service.deps, { attestationId, accountId: mine, imageSha256: IMAGE, rawSha256: RAW }), 'ATTESTATION_NOT_FOUND');
      expect(await t.eventCount()).toBe(before + 1);
    });

    it('lets exactly one of concurrent redemptions win', async () => {
      const { attestation_id: attestationId } = await attest(await newDevice());
      const before = await t.eventCount();
      const outcomes = await Promise.allSettled(Array.from({ length: 6 }, () => redeem({ attestationId, accountId: mine })));
      expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
      for (const o of outcomes) if (o.status === 'rejected') expect((o.reason as AppError).code).toBe('ATTESTATION_NOT_FOUND');
      expect(await t.eventCount()).toBe(before + 1);
    });

    it('binds challenge and attestation to the account: other accounts and keyless callers cannot use them', async () => {
      const a = await registerAccount(call);
      const b = await registerAccount(call);
      const device = await newDevice();
      const nonce = await challenge(a.token);
      const jws = await sign(device, payloadFor(nonce));
      const before = await t.eventCount();
      const foreign = await call('POST', '/capture/attestation', { token: b.token, json: { attestation: jws } });
      expect(foreign.status).toBe(400);
      expect(foreign.body.detail.error_code).toBe('INVALID_ATTESTATION');
      const keyless = await call('POST', '/capture/attestation', { json: { attestation: jws } });
      expect(keyless.status).toBe(401);
      expect(keyless.body.detail.error_code).toBe('AUTHENTICATION_REQUIRED');
      expect(await t.eventCount()).toBe(before);
      const res = await call('POST', '/capture/attestation', { token: a.token, json: { attestation: jws } });
      expect(res.status).toBe(201);
      const attestationId = res.body.attestation_id;
      expect((await t.service.deps.knex('capture_attestations').where({ attestation_id: attestationId }).first()).account_id).toBe(a.account.id);

      const afterAttest = await t.eventCount();
      await expectRejected(redeem({ attestationId, accountId: b.account.id }), 'ATTESTATION_NOT_FOUND');
      await expectRejected(redeem({ attestationId, accountId: null }), 'ATTESTATION_NOT_FOUND');
      expect(await t.eventCount()).toBe(afterAttest);
      await redeem({ attestationId, accountId: a.account.id });
    });

    it('refuses unknown and malformed attestation ids', async () => {
      const before = await t.eventCount();
      const unknown = await expectRejected(redeem({ attestationId: crypto.randomUUID(), accountId: mine }), 'ATTESTATION_NOT_FOUND');
      expect(errorCatalogue[unknown.code]).toBe(400);
      for (const garbage of ['', 'garbage', "1' or '1'='1", `${crypto.randomUUID()}x`]) {
        const error = await expectRejected(redeem({ attestationId: garbage, accountId: mine }), 'INVALID_ATTESTATION');
        expect(errorCatalogue[error.code]).toBe(400);
      }
      // A challenge that was never attested is not an attestation.
      await call('POST', '/capture/challenge', { token: me.token });
      const row = await t.service.deps.knex('capture_challenges').whereNull('attested_at').first();
      await expectRejected(redeem({ attestationId: row.capture_id, accountId: mine }), 'ATTESTATION_NOT_FOUND');
      expect(await t.eventCount()).toBe(before + 1);
    });

    it('refuses an attestation after its 24 hours', async () => {
      const { attestation_id: attestationId } = await attest(await newDevice());
      const realNow = t.service.deps.now;
      t.service.deps.now = () => new Date(Date.now() + 25 * 3_600_000);
      try {
        const before = await t.eventCount();
        const error = await expectRejected(redeem({ attestationId, accountId: mine }), 'ATTESTATION_NOT_FOUND');
        expect(error.message).toContain('expired');
        expect(await t.eventCount()).toBe(before);
      } finally {
        t.service.deps.now = realNow;
      }
    });

    describe('bad attestations leave no trace', () => {
      const rejects = async (body: unknown, status: number, code: string | null, message?: RegExp) => {
        const before = await t.eventCount();
        const res = await call('POST', '/capture/attestation', { token: me.token, json: body });
        expect(res.status, JSON.stringify(res.body)).toBe(status);
        if (code) {
          expect(res.body.detail.error_code).toBe(code);
          expect(res.body.detail.suggestion).toBeTruthy();
          if (message) expect(res.body.detail.message).toMatch(message);
        }
        expect(await t.eventCount()).toBe(before);
        return res;
      };

      it.each([
        ['not a JWS', 'garbage', /compact JWS/],
        ['two parts', 'abc.def', /compact JWS/],
        ['header not JSON', 'abc.def.ghi', /header/],
      ])('malformed: %s', async (_name, attestation, message) => {
        await rejects({ attestation }, 400, 'INVALID_ATTESTATION', message);
      });

      it('unsigned (alg none)', async () => {
        const nonce = await challenge();
        const header = base64url.encode(JSON.stringify({ alg: 'none', typ: 'pv-capture+jws' }));
        const payload = base64url.encode(JSON.stringify(payloadFor(nonce)));
        await rejects({ attestation: `${header}.${payload}.` }, 400, 'INVALID_ATTESTATION', /ES256/);
      });

      it('signed by another key than the embedded one', async () => {
        const [device, other] = [await newDevice(), await newDevice()];
        const jws = await sign(other, payloadFor(await challenge()), {}, device.publicJwk);
        await rejects({ attestation: jws }, 400, 'INVALID_ATTESTATION', /signature does not verify/);
      });

      it('tampered payload', async () => {
        const device = await newDevice();
        const [h, , s] = (await sign(device, payloadFor(await challenge()))).split('.');
        const forged = base64url.encode(JSON.stringify(payloadFor(await challenge(), { image_sha256: sha256('forged') })));
        await rejects({ attestation: `${h}.${forged}.${s}` }, 400, 'INVALID_ATTESTATION', /signature does not verify/);
      });

      it('wrong typ, missing jwk, private key in the header', async () => {
        const device = await newDevice();
        const nonce = await challenge();
        await rejects({ attestation: await sign(device, payloadFor(nonce), { typ: 'JWT' }) }, 400, 'INVALID_ATTESTATION', /typ/);
        const privateJwk = await exportJWK(device.privateKey);
        await rejects({ attestation: await sign(device, payloadFor(nonce), {}, privateJwk) }, 400, 'INVALID_ATTESTATION', /public key/);
        const noJwk = await new CompactSign(new TextEncoder().encode(JSON.stringify(payloadFor(nonce))))
          .setProtectedHeader({ alg: 'ES256', typ: 'pv-capture+jws' })
          .sign(device.privateKey);
        await rejects({ attestation: noJwk }, 400, 'INVALID_ATTESTATION', /jwk/);
      });

      it.each([
        ['missing image hash', { image_sha256: undefined }, /image_sha256/],
        ['uppercase hash', { image_sha256: IMAGE.toUpperCase() }, /image_sha256/],
        ['unknown payload field', { selfie: true }, /unknown field/],
        ['bad latitude', { gps: { latitude: 91, longitude: 0 } }, /gps.latitude/],
        ['wrong version', { v: 2 }, /\bv\b/],
        ['no integrity', { integrity: undefined }, /integrity/],
      ])('payload schema: %s', async (_name, overrides, message) => {
        const nonce = await challenge();
        await rejects({ attestation: await sign(await newDevice(), payloadFor(nonce, overrides)) }, 400, 'INVALID_ATTESTATION', message);
      });

      it('unknown nonce', async () => {
        const jws = await sign(await newDevice(), payloadFor(crypto.randomBytes(32).toString('base64url')));
        await rejects({ attestation: jws }, 400, 'INVALID_ATTESTATION', /unknown/);
      });

      it('expired nonce', async () => {
        const jws = await sign(await newDevice(), payloadFor(await challenge()));
        const realNow = t.service.deps.now;
        t.service.deps.now = () => new Date(Date.now() + 5 * 60_000 + 1000);
        try {
          await rejects({ attestation: jws }, 400, 'INVALID_ATTESTATION', /expired/);
        } finally {
          t.service.deps.now = realNow;
        }
      });

      it('reused nonce, even signed by another device', async () => {
        const nonce = await challenge();
        const first = await call('POST', '/capture/attestation', { token: me.token, json: { attestation: await sign(await newDevice(), payloadFor(nonce)) } });
        expect(first.status).toBe(201);
        await rejects({ attestation: await sign(await newDevice(), payloadFor(nonce)) }, 400, 'INVALID_ATTESTATION', /already been used/);
      });

      it('body validation: unknown field, missing field, wrong type, no body', async () => {
        const device = await newDevice();
        const jws = await sign(device, payloadFor(await challenge()));
        const extra = await rejects({ attestation: jws, device_id: 'x' }, 422, null);
        expect(extra.body.detail).toContainEqual(expect.objectContaining({ loc: ['body', 'device_id'], type: 'extra_forbidden' }));
        const missing = await rejects({}, 422, null);
        expect(missing.body.detail).toContainEqual(expect.objectContaining({ loc: ['body', 'attestation'], type: 'missing' }));
        await rejects({ attestation: 42 }, 422, null);
        await rejects({ attestation: 'x'.repeat(20_000) }, 422, null);
        const none = await call('POST', '/capture/attestation', { token: me.token });
        expect(none.status).toBe(422);
      });
    });

    it('requires credentials on both routes (REST has no keyless use; spec 5.1)', async () => {
      const before = await t.eventCount();
      for (const [route, json] of [['/capture/challenge', undefined], ['/capture/attestation', { attestation: 'garbage' }]] as const) {
        const res = await call('POST', route, { json });
        expect([route, res.status, res.body.detail.error_code]).toEqual([route, 401, 'AUTHENTICATION_REQUIRED']);
      }
      expect(await t.eventCount()).toBe(before);
    });

    it('documents both routes in /openapi.json', async () => {
      const { body } = await call('GET', '/openapi.json');
      expect(Object.keys(body.paths)).toEqual(expect.arrayContaining(['/capture/challenge', '/capture/attestation']));
    });

    it('works with the example client script (device key saved and reused)', async () => {
      const dir = fs.mkdtempSync(path.join(t.dataDir, 'client-'));
      const keyFile = path.join(dir, 'device.jwk');
      const apiKey = (await call('POST', '/v1/apikeys/', { token: me.token, json: { account_id: mine } })).body.raw_key as string;
      const run = () =>
        promisify(execFile)(path.resolve('node_modules/.bin/tsx'), ['scripts/capture-client.ts', '--url', t.url, '--image', FIXTURE_IMAGE, '--api-key', apiKey, '--key', keyFile, '--sequence', '7', '--gps', '48.85,2.35'], {
          cwd: path.resolve(import.meta.dirname, '../..'),
        });
      const first = (await run()).stdout.trim();
      expect(first).toMatch(/^[0-9a-f-]{36}$/);
      expect(fs.statSync(keyFile).mode & 0o777).toBe(0o600);
      const second = (await run()).stdout.trim();
      const facts = await redeem({ attestationId: second, accountId: mine, imageSha256: sha256(fs.readFileSync(FIXTURE_IMAGE)), rawSha256: null });
      const firstFacts = await validateAttestationForUpload(t.service.deps, { attestationId: first, accountId: mine, imageSha256: sha256(fs.readFileSync(FIXTURE_IMAGE)), rawSha256: null });
      expect(facts.device_fingerprint_id).toBe(firstFacts.device_fingerprint_id);
      expect(facts).toMatchObject({ sequence_number: 7, capture_gps_latitude: 48.85, capture_gps_longitude: 2.35, security_score: 0.56, integrity_score: 0.8 });
      expect(facts.camera_fingerprint_id).toMatch(/^[0-9a-f]{32}$/);
    });
  });
}
