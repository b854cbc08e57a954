/**
 * How the verification create route uses a capture attestation.
 *
 * - `validateAttestationForUpload` runs every check of a redemption (id well-formed, attestation
 *   exists and belongs to the caller's account (or both keyless), unexpired, unused, file
 *   hashes equal the attested ones) WITHOUT consuming anything. Call it once the upload's
 *   hashes are known, before anything is recorded, so a rejected upload leaves no trace.
 * - `redeemAttestation` runs the same checks and appends `AttestationRedeemed`, making the
 *   attestation single-use: of concurrent redemptions exactly one wins (optimistic
 *   concurrency on the capture stream); the others get ATTESTATION_NOT_FOUND. A retry with the
 *   same verification_id succeeds again without a new event. A HASH_MISMATCH consumes nothing.
 *
 * Errors: INVALID_ATTESTATION (400) malformed id; ATTESTATION_NOT_FOUND (400) unknown, foreign,
 * expired or already used by another verification; HASH_MISMATCH (422).
 */
import { z } from 'zod';
import { execute } from '../../core/es/commands.js';
import type { AppDeps } from '../../core/module/deps.js';
import { AppError } from '../../core/errors.js';
import { foldStream, type CommandContext } from '../../core/es/decider.js';
import type { Call } from '../../core/principal.js';
import { attestationDecider, captureStream, checkRedeemable, type AttestationState } from './decider.js';
import type { CaptureAttestedData } from './events.js';

/** The capture fields of a Verification (spec 2.1) that come from its attestation. */
export interface CaptureFacts {
  security_score: number;
  attestation_validated: true;
  device_fingerprint_id: string;
  camera_fingerprint_id: string | null;
  sequence_number: number | null;
  integrity_score: number;
  jailbreak_indicators: string[];
  capture_gps_latitude: number | null;
  capture_gps_longitude: number | null;
}

export interface AttestationUse {
  attestationId: string;
  accountId: string | null;
  imageSha256: string;
  rawSha256: string | null;
}

export async function validateAttestationForUpload(deps: Pick<AppDeps, 'store' | 'now'>, input: AttestationUse): Promise<CaptureFacts> {
  const attestationId = wellFormedId(input.attestationId);
  const state = await loadState(deps, attestationId);
  const { attestation } = checkRedeemable(state, {
    attestation_id: attestationId,
    account_id: input.accountId,
    verification_id: null,
    image_sha256: input.imageSha256,
    raw_sha256: input.rawSha256,
    now: deps.now(),
  });
  return toFacts(attestation);
}

export async function redeemAttestation(
  deps: AppDeps,
  call: Call,
  input: AttestationUse & { verificationId: string },
  context: CommandContext,
): Promise<CaptureFacts> {
  const attestationId = wellFormedId(input.attestationId);
  await execute(deps, call, captureStream(attestationId), attestationDecider, {
    type: 'RedeemAttestation',
    attestation_id: attestationId,
    account_id: input.accountId,
    verification_id: input.verificationId,
    image_sha256: input.imageSha256,
    raw_sha256: input.rawSha256,
    now: context.now,
  }, context);
  // The stream now holds the redemption (ours, or ours from an earlier retry): read its facts from it.
  const state = await loadState(deps, attestationId);
  if (state.status !== 'redeemed') throw new Error(`capture stream ${attestationId} is ${state.status} right after a redemption`);
  return toFacts(state.attestation);
}

function wellFormedId(id: string): string {
  if (!z.uuid().safeParse(id).success) {
    throw new AppError('INVALID_ATTESTATION', 'attestation_id is not well-formed (expected a UUID).', {
      suggestion: 'Send the attestation_id exactly as returned by POST /capture/attestation.',
    });
  }
  return id.toLowerCase();
}

async function loadState(deps: Pick<AppDeps, 'store'>, attestationId: string): Promise<AttestationState> {
  return (await foldStream(deps.store, captureStream(attestationId), attestationDecider)).state;
}

function toFacts(a: CaptureAttestedData): CaptureFacts {
  return {
    security_score: a.security_score,
    attestation_validated: true,
    device_fingerprint_id: a.device_fingerprint_id,
    camera_fingerprint_id: a.camera_fingerprint_id,
    sequence_number: a.sequence_number,
    integrity_score: a.integrity_score,
    jailbreak_indicators: a.jailbreak_indicators,
    capture_gps_latitude: a.capture_gps_latitude,
    capture_gps_longitude: a.capture_gps_longitude,
  };
}
