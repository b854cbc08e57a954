import { z } from 'zod';
import { defineEvent, type EventOf } from '../../core/es/events.js';

const sha256Hex = z.string().regex(/^[0-9a-f]{64}$/);

/**
 * One capture session per stream: a challenge, at most one attestation over it, at most one
 * redemption of that attestation. Keeping all three in one stream makes "single use" an
 * optimistic-concurrency guarantee instead of a read-model check.
 */
export const attestationEvents = {
  CaptureChallengeIssued: defineEvent(
    'CaptureChallengeIssued',
    z.object({
      capture_id: z.uuid(),
      // Only the hash: a database dump must not hand out live nonces.
      nonce_sha256: sha256Hex,
      account_id: z.uuid().nullable(),
      issued_at: z.iso.datetime(),
      expires_at: z.iso.datetime(),
    }),
  ),
  CaptureAttested: defineEvent(
    'CaptureAttested',
    z.object({
      attestation_id: z.uuid(),
      account_id: z.uuid().nullable(),
      attested_at: z.iso.datetime(),
      /** Redemption deadline. */
      expires_at: z.iso.datetime(),
      /** The signed evidence as received, so an auditor can verify it again from the log. */
      jws: z.string(),
      image_sha256: sha256Hex,
      raw_sha256: sha256Hex.nullable(),
      captured_at: z.iso.datetime(),
      device_fingerprint_id: z.string(),
      camera_fingerprint_id: z.string().nullable(),
      sequence_number: z.number().int().nonnegative().nullable(),
      capture_gps_latitude: z.number().min(-90).max(90).nullable(),
      capture_gps_longitude: z.number().min(-180).max(180).nullable(),
      jailbreak_indicators: z.array(z.string()),
      integrity_score: z.number().min(0).max(1),
      security_score: z.number().min(0).max(1),
    }),
  ),
  AttestationRedeemed: defineEvent(
    'AttestationRedeemed',
    z.object({ attestation_id: z.uuid(), verification_id: z.uuid(), redeemed_at: z.iso.datetime() }),
  ),
} as const;
export type AttestationEvent = EventOf<typeof attestationEvents>;
export type CaptureAttestedData = Extract<AttestationEvent, { type: 'CaptureAttested' }>['data'];
