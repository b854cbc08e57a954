import { describe, it } from 'vitest';
import { given } from '../../../test/support/decider-spec.js';
import { uploadDecider, type UploadCommand } from './decider.js';
import type { UploadEvent } from './events.js';
import { UPLOAD_EXPIRY_GRACE_MS } from '../../../workflows/uploads/policy.js';

const RECEIVED_AT = new Date('2026-03-01T10:00:00.000Z');
const EXPIRES_AT = new Date('2026-03-01T11:00:00.000Z');
const DELETABLE_AT = new Date(EXPIRES_AT.getTime() + UPLOAD_EXPIRY_GRACE_MS);
const VERIFICATION = '0b000000-0000-4000-8000-000000000001';
const KEY = 'uploads/0123456789abcdef0123456789abcdef';

const receive: UploadCommand = { type: 'Receive', filename: 'big.dng', size: 42, sha256: 'a'.repeat(64), blob_key: KEY, expires_at: EXPIRES_AT.toISOString(), now: RECEIVED_AT };
const use = (now = RECEIVED_AT): UploadCommand => ({ type: 'Use', verification_id: VERIFICATION, now });
const expire = (now: Date): UploadCommand => ({ type: 'Expire', now });

const received: UploadEvent = {
  type: 'UploadReceived',
  data: { filename: 'big.dng', size: 42, sha256: 'a'.repeat(64), blob_key: KEY, expires_at: EXPIRES_AT.toISOString(), received_at: RECEIVED_AT.toISOString() },
};
const used: UploadEvent = { type: 'UploadUsed', data: { verification_id: VERIFICATION, used_at: RECEIVED_AT.toISOString() } };
const expired: UploadEvent = { type: 'UploadExpired', data: { blob_key: KEY, expires_at: EXPIRES_AT.toISOString(), expired_at: DELETABLE_AT.toISOString() } };

describe('upload decider', () => {
  describe('nothing recorded', () => {
    it('records the file received', () => given(uploadDecider, []).when(receive).then([received]));
    it('records a use (a file sent before uploads were recorded)', () => given(uploadDecider, []).when(use()).then([used]));
    it('has nothing to expire', () => given(uploadDecider, []).when(expire(DELETABLE_AT)).thenNothing());
  });

  describe('received', () => {
    it('refuses a second file', () => given(uploadDecider, [received]).when(receive).thenThrows('UPLOAD_ALREADY_RECEIVED'));
    it('records the use by a verification', () => given(uploadDecider, [received]).when(use()).then([used]));
    it('keeps the file while the id is valid', () => given(uploadDecider, [received]).when(expire(EXPIRES_AT)).thenNothing());
    it('keeps the file during the grace after expiry (a verify call may still be copying it)', () =>
      given(uploadDecider, [received]).when(expire(new Date(DELETABLE_AT.getTime() - 1))).thenNothing());
    it('expires once the grace has passed', () => given(uploadDecider, [received]).when(expire(DELETABLE_AT)).then([expired]));
  });

  describe('used by a verification', () => {
    it('is never expired: the verification holds its own copy', () => given(uploadDecider, [received, used]).when(expire(new Date(DELETABLE_AT.getTime() + 86_400_000))).thenNothing());
    it('records a repeated use once', () => given(uploadDecider, [received, used]).when(use()).thenNothing());
    it('refuses a second file', () => given(uploadDecider, [received, used]).when(receive).thenThrows('UPLOAD_ALREADY_RECEIVED'));
  });

  describe('expired', () => {
    it('refuses a use', () => given(uploadDecider, [received, expired]).when(use(DELETABLE_AT)).thenThrows('UPLOAD_EXPIRED'));
    it('is expired once', () => given(uploadDecider, [received, expired]).when(expire(DELETABLE_AT)).thenNothing());
  });
});
