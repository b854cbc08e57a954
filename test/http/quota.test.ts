import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { newDevice, signAttestation } from '../support/capture.js';
import { databaseTargets } from '../support/databases.js';
import { registerAccount } from '../support/service.js';
import { serviceSuite } from '../support/suite.js';

const fixtures = path.resolve(import.meta.dirname, '../../../shared/fixtures');
// The 6D pair is small (0.4 MB RAW), so many verifications stay cheap on two cores.
const raw = fs.readFileSync(path.join(fixtures, 'pairs/canon_eos_6d_dng/canon_eos_6d.dng'));
const jpeg = fs.readFileSync(path.join(fixtures, 'pairs/canon_eos_6d_dng/canon_eos_6d.preview.jpg'));
const imageOnly = fs.readFileSync(path.join(fixtures, 'images/rs_sample1.webp'));
const sha256 = (b: Uint8Array) => crypto.createHash('sha256').update(b).digest('hex');

async function upload(url: string, token: string, withRaw: boolean, extra: Record<string, string> = {}) {
  const form = new FormData();
  form.append('image', new Blob([new Uint8Array(withRaw ? jpeg : imageOnly)]), withRaw ? 'a.jpg' : 'a.webp');
  if (withRaw) form.append('raw', new Blob([new Uint8Array(raw)]), 'a.dng');
  for (const [k, v] of Object.entries(extra)) form.append(k, v);
  const res = await fetch(`${url}/v1/verifications/`, { method: 'POST', headers: { authorization: `Bearer ${token}` }, body: form });
  return { status: res.status, body: await res.json() };
}

for (const target of databaseTargets) {
  describe(`quotas, load and capture attestation on ${target.name}`, () => {
    const { t, call } = serviceSuite(target);

    it('gives the Free plan 5 raw pairs a month, then 402 QUOTA_EXCEEDED; image-only stays free', async () => {
      const free = await registerAccount(call);
      for (let i = 0; i < 5; i++) expect((await upload(t.url, free.token, true)).status).toBe(201);
      // The five are still being analysed: count events only once they are done.
      await t.settled();
      const events = await t.eventCount();
      const refused = await upload(t.url, free.token, true);
      expect(refused.status).toBe(402);
      expect(refused.body.detail).toMatchObject({ error_code: 'QUOTA_EXCEEDED', suggestion: expect.stringContaining('image-only') });
      expect(await t.eventCount()).toBe(events);
      expect((await upload(t.url, free.token, false)).status).toBe(201);
      const usage = await call('GET', `/v1/accounts/${free.account.id}/usage`, { token: free.token });
      expect(usage.body).toMatchObject({ plan: 'free', included: 5, included_used: 5, included_remaining: 0, overage_count: 0, overage_amount: 0, currency: 'EUR' });
    }, 10 * 60_000); // five 20 MP pairs analysed: 41 s alone, several minutes at load 10

    it('keeps quotas exact under 50 concurrent uploads at the edge, and every accepted one completes', async () => {
      // Basic: 25 included, then 0.25 each up to a 1.00 budget: exactly 29 may pass.
      const basic = await registerAccount(call, { plan: 'basic', billing_country: 'US', monthly_budget_cap_eur: 1 });
      const results = await Promise.all(Array.from({ length: 50 }, () => upload(t.url, basic.token, true)));
      const accepted = results.filter((r) => r.status === 201);
      expect(accepted).toHaveLength(29);
      expect(results.filter((r) => r.status === 402)).toHaveLength(21);
      await t.settled();
      const listed = await call('GET', '/v1/verifications/?size=100', { token: basic.token });
      expect(listed.body.total).toBe(29);
      expect(new Set(listed.body.items.map((v: { id: string }) => v.id))).toEqual(new Set(accepted.map((r) => r.body.id)));
      expect(listed.body.items.every((v: { status: string }) => v.status === 'completed')).toBe(true);
      const usage = await call('GET', `/v1/accounts/${basic.account.id}/usage`, { token: basic.token });
      expect(usage.body).toMatchObject({ plan: 'basic', included: 25, included_used: 25, overage_count: 4, overage_amount: 1, currency: 'USD', monthly_budget_cap: 1 });
    }, 30 * 60_000); // 29 pairs analysed: 179 s alone; sized for load 10 on 2 cores

    it('accepts a capture attestation over the uploaded files and fills the capture fields', async () => {
      const owner = await registerAccount(call, { plan: 'professional' });
      const device = await newDevice();
      const challenge = await call('POST', '/capture/challenge', { token: owner.token });
      const jws = await signAttestation(device, {
        v: 1,
        nonce: challenge.body.nonce,
        image_sha256: sha256(jpeg),
        raw_sha256: sha256(raw),
        captured_at: new Date().toISOString(),
        camera: { make: 'Canon', model: 'EOS 6D' },
        sequence_number: 7,
        gps: { latitude: 48.137, longitude: 11.575 },
        integrity: { app_integrity: 'verified', hardware_backed_key: true, jailbreak_indicators: [] },
      });
      const attestation = await call('POST', '/capture/attestation', { token: owner.token, json: { attestation: jws } });
      expect(attestation.status).toBe(201);

      const mismatch = await upload(t.url, owner.token, false, { attestation_id: attestation.body.attestation_id });
      expect(mismatch.status).toBe(422);
      expect(mismatch.body.detail.error_code).toBe('HASH_MISMATCH');

      const created = await upload(t.url, owner.token, true, { attestation_id: attestation.body.attestation_id });
      expect(created.status).toBe(201);
      expect(created.body.security_score).toBe(attestation.body.security_score);
      const v = await call('GET', `/v1/verifications/${created.body.id}`, { token: owner.token });
      expect(v.body).toMatchObject({ attestation_validated: true, sequence_number: 7, capture_gps_latitude: 48.137, capture_gps_longitude: 11.575, security_score: attestation.body.security_score });
      expect(v.body.device_fingerprint_id).toEqual(expect.any(String));

      const reused = await upload(t.url, owner.token, true, { attestation_id: attestation.body.attestation_id });
      expect(reused.status).toBe(400);
      expect(reused.body.detail.error_code).toBe('ATTESTATION_NOT_FOUND');
    });
  });
}
