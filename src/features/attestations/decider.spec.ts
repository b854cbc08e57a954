import { describe, expect, it } from 'vitest';
import { given } from '../../../test/support/decider-spec.js';
import { attestationDecider, ATTESTATION_TTL_MS, CHALLENGE_TTL_MS, type AttestationCommand } from './decider.js';
import type { AttestationEvent, CaptureAttestedData } from './events.js';
import type { CapturePayload } from './format.js';

const CAPTURE = '0e000000-0000-4000-8000-000000000001';
const OTHER_CAPTURE = '0e000000-0000-4000-8000-000000000002';
const ACCOUNT = '0a000000-0000-4000-8000-000000000001';
const OTHER_ACCOUNT = '0a000000-0000-4000-8000-000000000002';
const VERIFICATION = '0d000000-0000-4000-8000-000000000001';
const OTHER_VERIFICATION = '0d000000-0000-4000-8000-000000000002';

const NONCE_SHA256 = 'c'.repeat(64);
const IMAGE_SHA256 = 'a1'.repeat(32);
const RAW_SHA256 = 'b2'.repeat(32);
const OTHER_SHA256 = 'ff'.repeat(32);
const DEVICE = 'device-thumbprint-1';
const JWS = 'header.payload.signature';

const ISSUED_AT = new Date('2026-03-01T10:00:00.000Z');
const at = (ms: number) => new Date(ISSUED_AT.getTime() + ms);
const ATTESTED_AT = at(60_000);
const ATTESTATION_EXPIRES_AT = new Date(ATTESTED_AT.getTime() + ATTESTATION_TTL_MS);

const payload: CapturePayload = {
  v: 1,
  nonce: 'nonce-nonce-nonce-nonce',
  image_sha256: IMAGE_SHA256,
  raw_sha256: RAW_SHA256,
  // With an offset: recorded in UTC.
  captured_at: '2026-03-01T12:00:30+02:00',
  camera: { make: ' Canon ', model: 'EOS R5', serial: '0123456' },
  sequence_number: 42,
  gps: { latitude: 52.52, longitude: 13.405, accuracy_m: 5 },
  integrity: { app_integrity: 'verified', hardware_backed_key: true, jailbreak_indicators: [], emulator: false, debugger_attached: false, mock_location: false },
};

const challengeIssued = (accountId: string | null = ACCOUNT): AttestationEvent => ({
  type: 'CaptureChallengeIssued',
  data: {
    capture_id: CAPTURE,
    nonce_sha256: NONCE_SHA256,
    account_id: accountId,
    issued_at: ISSUED_AT.toISOString(),
    expires_at: at(CHALLENGE_TTL_MS).toISOString(),
  },
});

const attestedData = (overrides: Partial<CaptureAttestedData> = {}): CaptureAttestedData => ({
  attestation_id: CAPTURE,
  account_id: ACCOUNT,
  attested_at: ATTESTED_AT.toISOString(),
  expires_at: ATTESTATION_EXPIRES_AT.toISOString(),
  jws: JWS,
  image_sha256: IMAGE_SHA256,
  raw_sha256: RAW_SHA256,
  captured_at: '2026-03-01T10:00:30.000Z',
  device_fingerprint_id: DEVICE,
  // sha256 of ["canon","eos r5","0123456",""], first 32 hex digits.
  camera_fingerprint_id: '7b8bbd6db33685afaca3edea8f14e597',
  sequence_number: 42,
  capture_gps_latitude: 52.52,
  capture_gps_longitude: 13.405,
  jailbreak_indicators: [],
  integrity_score: 1,
  security_score: 1,
  ...overrides,
});
const captureAttested = (overrides: Partial<CaptureAttestedData> = {}): AttestationEvent => ({ type: 'CaptureAttested', data: attestedData(overrides) });
const redeemed = (verificationId = VERIFICATION, when = at(3_600_000)): AttestationEvent => ({
  type: 'AttestationRedeemed',
  data: { attestation_id: CAPTURE, verification_id: verificationId, redeemed_at: when.toISOString() },
});

const issue = (accountId: string | null = ACCOUNT): AttestationCommand => ({
  type: 'IssueChallenge',
  capture_id: CAPTURE,
  nonce_sha256: NONCE_SHA256,
  account_id: accountId,
  now: ISSUED_AT,
});
const attest = (overrides: Partial<Extract<AttestationCommand, { type: 'AttestCapture' }>> = {}): AttestationCommand => ({
  type: 'AttestCapture',
  account_id: ACCOUNT,
  jws: JWS,
  payload,
  device_fingerprint_id: DEVICE,
  now: ATTESTED_AT,
  ...overrides,
});
const redeem = (overrides: Partial<Extract<AttestationCommand, { type: 'RedeemAttestation' }>> = {}): AttestationCommand => ({
  type: 'RedeemAttestation',
  attestation_id: CAPTURE,
  account_id: ACCOUNT,
  verification_id: VERIFICATION,
  image_sha256: IMAGE_SHA256,
  raw_sha256: RAW_SHA256,
  now: at(3_600_000),
  ...overrides,
});

describe('attestationDecider', () => {
  describe('given no challenge', () => {
    it('IssueChallenge issues a challenge to the account, valid for 5 minutes', () => {
      given(attestationDecider, []).when(issue()).then([challengeIssued()]);
    });

    it('IssueChallenge without credentials issues a keyless challenge', () => {
      given(attestationDecider, []).when(issue(null)).then([challengeIssued(null)]);
    });

    it('AttestCapture is rejected with INVALID_ATTESTATION (unknown nonce)', () => {
      given(attestationDecider, []).when(attest()).thenThrows('INVALID_ATTESTATION', /unknown/);
    });

    it('RedeemAttestation is rejected with ATTESTATION_NOT_FOUND', () => {
      given(attestationDecider, []).when(redeem()).thenThrows('ATTESTATION_NOT_FOUND', /^Attestation not found\.$/);
    });
  });

  describe('given a challenge issued to an account', () => {
    const history = [challengeIssued()];

    it('IssueChallenge for the same capture id is rejected with CONFLICT', () => {
      given(attestationDecider, history).when(issue()).thenThrows('CONFLICT');
    });

    it('AttestCapture by the same account within the challenge window records the attestation and its scores', () => {
      given(attestationDecider, history).when(attest()).then([captureAttested()]);
    });

    it('AttestCapture with a weak reported environment records the lowered scores and sorted, de-duplicated indicators', () => {
      const weak: CapturePayload = {
        ...payload,
        raw_sha256: null,
        camera: null,
        sequence_number: null,
        gps: null,
        integrity: {
          app_integrity: 'unverified',
          hardware_backed_key: false,
          jailbreak_indicators: [' frida ', 'cydia', 'frida'],
          emulator: false,
          debugger_attached: true,
          mock_location: true,
        },
      };
      given(attestationDecider, history)
        .when(attest({ payload: weak }))
        .then([
          captureAttested({
            raw_sha256: null,
            camera_fingerprint_id: null,
            sequence_number: null,
            capture_gps_latitude: null,
            capture_gps_longitude: null,
            jailbreak_indicators: ['cydia', 'frida'],
            // 0.6 (unverified) * 0.3 * 0.8 (two indicators) * 0.5 (debugger) * 0.7 (mock location)
            integrity_score: 0.05,
            // integrity * 0.7 (no hardware-backed key)
            security_score: 0.035,
          }),
        ]);
    });

    it('AttestCapture of a photo captured well before the challenge lowers the security score', () => {
      const early = at(-120_000);
      given(attestationDecider, history)
        .when(attest({ payload: { ...payload, captured_at: early.toISOString() } }))
        .then([captureAttested({ captured_at: early.toISOString(), security_score: 0.8 })]);
    });

    it('AttestCapture just before the challenge expires is accepted', () => {
      const now = at(CHALLENGE_TTL_MS - 1);
      given(attestationDecider, history)
        .when(attest({ now }))
        .then([captureAttested({ attested_at: now.toISOString(), expires_at: new Date(now.getTime() + ATTESTATION_TTL_MS).toISOString() })]);
    });

    it('AttestCapture when the challenge expires is rejected with INVALID_ATTESTATION (expired)', () => {
      given(attestationDecider, history)
        .when(attest({ now: at(CHALLENGE_TTL_MS) }))
        .thenThrows('INVALID_ATTESTATION', /expired at 2026-03-01T10:05:00.000Z/);
    });

    it('AttestCapture by another account is rejected with INVALID_ATTESTATION (unknown nonce)', () => {
      given(attestationDecider, history).when(attest({ account_id: OTHER_ACCOUNT })).thenThrows('INVALID_ATTESTATION', /unknown/);
    });

    it('AttestCapture without credentials is rejected with INVALID_ATTESTATION (unknown nonce)', () => {
      given(attestationDecider, history).when(attest({ account_id: null })).thenThrows('INVALID_ATTESTATION', /unknown/);
    });

    it('RedeemAttestation before the capture is attested is rejected with ATTESTATION_NOT_FOUND', () => {
      given(attestationDecider, history).when(redeem()).thenThrows('ATTESTATION_NOT_FOUND');
    });
  });

  describe('given a keyless challenge', () => {
    const history = [challengeIssued(null)];

    it('AttestCapture without credentials records the attestation with no account', () => {
      given(attestationDecider, history).when(attest({ account_id: null })).then([captureAttested({ account_id: null })]);
    });

    it('AttestCapture with credentials is rejected with INVALID_ATTESTATION (unknown nonce)', () => {
      given(attestationDecider, history).when(attest()).thenThrows('INVALID_ATTESTATION', /unknown/);
    });
  });

  describe('given an attested capture (image and RAW)', () => {
    const history = [challengeIssued(), captureAttested()];

    it('IssueChallenge for the same capture id is rejected with CONFLICT', () => {
      given(attestationDecider, history).when(issue()).thenThrows('CONFLICT');
    });

    it('AttestCapture again is rejected with INVALID_ATTESTATION (nonce already used)', () => {
      given(attestationDecider, history).when(attest()).thenThrows('INVALID_ATTESTATION', /already been used/);
    });

    it('AttestCapture again by another account is rejected with INVALID_ATTESTATION (unknown nonce)', () => {
      given(attestationDecider, history).when(attest({ account_id: OTHER_ACCOUNT })).thenThrows('INVALID_ATTESTATION', /unknown/);
    });

    it('RedeemAttestation with the attested files redeems it for the verification', () => {
      given(attestationDecider, history).when(redeem()).then([redeemed()]);
    });

    it('RedeemAttestation compares hashes case-insensitively', () => {
      given(attestationDecider, history)
        .when(redeem({ image_sha256: IMAGE_SHA256.toUpperCase(), raw_sha256: RAW_SHA256.toUpperCase() }))
        .then([redeemed()]);
    });

    it('RedeemAttestation just before the attestation expires redeems it', () => {
      const now = new Date(ATTESTATION_EXPIRES_AT.getTime() - 1);
      given(attestationDecider, history).when(redeem({ now })).then([redeemed(VERIFICATION, now)]);
    });

    it('RedeemAttestation when the attestation expires is rejected with ATTESTATION_NOT_FOUND (expired)', () => {
      given(attestationDecider, history)
        .when(redeem({ now: ATTESTATION_EXPIRES_AT }))
        .thenThrows('ATTESTATION_NOT_FOUND', /expired at 2026-03-02T10:01:00.000Z/);
    });

    it('RedeemAttestation by another account is rejected with ATTESTATION_NOT_FOUND', () => {
      given(attestationDecider, history).when(redeem({ account_id: OTHER_ACCOUNT })).thenThrows('ATTESTATION_NOT_FOUND', /^Attestation not found\.$/);
    });

    it('RedeemAttestation without credentials is rejected with ATTESTATION_NOT_FOUND', () => {
      given(attestationDecider, history).when(redeem({ account_id: null })).thenThrows('ATTESTATION_NOT_FOUND');
    });

    it('RedeemAttestation naming another attestation id is rejected with ATTESTATION_NOT_FOUND', () => {
      given(attestationDecider, history).when(redeem({ attestation_id: OTHER_CAPTURE })).thenThrows('ATTESTATION_NOT_FOUND');
    });

    it('RedeemAttestation with another image is rejected with HASH_MISMATCH (image)', () => {
      const error = given(attestationDecider, history).when(redeem({ image_sha256: OTHER_SHA256 })).thenThrows('HASH_MISMATCH', /\("image" differs\)/);
      expect(error.details).toEqual({ mismatched: ['image'] });
      expect(error.suggestion).toMatch(/image and RAW files/);
    });

    it('RedeemAttestation with another RAW is rejected with HASH_MISMATCH (raw)', () => {
      const error = given(attestationDecider, history).when(redeem({ raw_sha256: OTHER_SHA256 })).thenThrows('HASH_MISMATCH', /\("raw" differs\)/);
      expect(error.details).toEqual({ mismatched: ['raw'] });
    });

    it('RedeemAttestation with both files different is rejected with HASH_MISMATCH (image and raw)', () => {
      const error = given(attestationDecider, history)
        .when(redeem({ image_sha256: OTHER_SHA256, raw_sha256: OTHER_SHA256 }))
        .thenThrows('HASH_MISMATCH', /\("image" and "raw" differ\)/);
      expect(error.details).toEqual({ mismatched: ['image', 'raw'] });
    });

    it('RedeemAttestation without the attested RAW is rejected with HASH_MISMATCH (raw)', () => {
      const error = given(attestationDecider, history).when(redeem({ raw_sha256: null })).thenThrows('HASH_MISMATCH');
      expect(error.details).toEqual({ mismatched: ['raw'] });
    });
  });

  describe('given an attested image-only capture (no RAW)', () => {
    const history = [challengeIssued(), captureAttested({ raw_sha256: null })];

    it('RedeemAttestation with the image alone redeems it', () => {
      given(attestationDecider, history).when(redeem({ raw_sha256: null })).then([redeemed()]);
    });

    it('RedeemAttestation with a RAW is rejected with HASH_MISMATCH (raw), suggesting to upload without one', () => {
      const error = given(attestationDecider, history).when(redeem()).thenThrows('HASH_MISMATCH', /\("raw" differs\)/);
      expect(error.details).toEqual({ mismatched: ['raw'] });
      expect(error.suggestion).toMatch(/without a RAW/);
    });
  });

  describe('given a redeemed attestation', () => {
    const history = [challengeIssued(), captureAttested(), redeemed()];

    it('RedeemAttestation again for the same verification decides nothing (idempotent)', () => {
      given(attestationDecider, history).when(redeem()).thenNothing();
    });

    it('RedeemAttestation again for the same verification after the attestation expired still decides nothing', () => {
      given(attestationDecider, history).when(redeem({ now: new Date(ATTESTATION_EXPIRES_AT.getTime() + 1) })).thenNothing();
    });

    it('RedeemAttestation again for the same verification with other files is rejected with HASH_MISMATCH', () => {
      given(attestationDecider, history).when(redeem({ image_sha256: OTHER_SHA256 })).thenThrows('HASH_MISMATCH');
    });

    it('RedeemAttestation for another verification is rejected with ATTESTATION_NOT_FOUND (already used)', () => {
      given(attestationDecider, history)
        .when(redeem({ verification_id: OTHER_VERIFICATION }))
        .thenThrows('ATTESTATION_NOT_FOUND', /already been used for another verification/);
    });

    it('RedeemAttestation by another account is rejected with ATTESTATION_NOT_FOUND', () => {
      given(attestationDecider, history).when(redeem({ account_id: OTHER_ACCOUNT })).thenThrows('ATTESTATION_NOT_FOUND', /^Attestation not found\.$/);
    });

    it('AttestCapture again is rejected with INVALID_ATTESTATION (nonce already used)', () => {
      given(attestationDecider, history).when(attest()).thenThrows('INVALID_ATTESTATION', /already been used/);
    });

    it('IssueChallenge for the same capture id is rejected with CONFLICT', () => {
      given(attestationDecider, history).when(issue()).thenThrows('CONFLICT');
    });
  });
});
