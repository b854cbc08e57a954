import { AppError } from '../../core/errors.js';
import type { Decider } from '../../core/es/decider.js';
import { assertNever } from '../../core/es/events.js';
import { attestationEvents, type AttestationEvent, type CaptureAttestedData } from './events.js';
import type { CapturePayload } from './format.js';
import { cameraFingerprintId, captureTimeConsistent, integrityScore, jailbreakIndicators, securityScore } from './scoring.js';
import { streamName } from '../../core/es/streams.js';

/** The stream id is the capture id, which is also the attestation id handed out on success. */
export const captureStream = (captureId: string) => streamName('capture', captureId);

/** A challenge must be signed soon after it is fetched: it proves the signature is fresh. */
export const CHALLENGE_TTL_MS = 5 * 60_000;
/** Time to upload the files after attesting (RAW uploads on mobile networks can be slow). */
export const ATTESTATION_TTL_MS = 24 * 60 * 60_000;

export type AttestationCommand =
  | { type: 'IssueChallenge'; capture_id: string; nonce_sha256: string; account_id: string | null; now: Date }
  | {
      type: 'AttestCapture';
      /** The caller's account (null when keyless): must be the challenge's. */
      account_id: string | null;
      jws: string;
      payload: CapturePayload;
      device_fingerprint_id: string;
      now: Date;
    }
  | {
      type: 'RedeemAttestation';
      attestation_id: string;
      account_id: string | null;
      verification_id: string;
      image_sha256: string;
      raw_sha256: string | null;
      now: Date;
    };

interface Challenge {
  captureId: string;
  accountId: string | null;
  issuedAt: Date;
  expiresAt: Date;
}

export type AttestationState =
  | { status: 'none' }
  | ({ status: 'issued' } & Challenge)
  | ({ status: 'attested'; attestation: CaptureAttestedData } & Challenge)
  | ({ status: 'redeemed'; attestation: CaptureAttestedData; verificationId: string } & Challenge);

const invalid = (message: string) =>
  new AppError('INVALID_ATTESTATION', message, { suggestion: 'Request a new challenge with POST /capture/challenge, capture, sign and submit within 5 minutes.' });

const notFound = (message = 'Attestation not found.') =>
  new AppError('ATTESTATION_NOT_FOUND', message, {
    suggestion: 'Use the attestation_id from POST /capture/attestation, with the same credentials (or none) used to obtain the challenge, within 24 hours, once.',
  });

export interface RedeemCheck {
  attestation_id: string;
  account_id: string | null;
  /** null when only checking (nothing will be consumed). */
  verification_id: string | null;
  image_sha256: string;
  raw_sha256: string | null;
  now: Date;
}

/**
 * Everything a redemption requires, shared by the decider and the non-consuming pre-check.
 * Returns whether this verification already redeemed it (a retried request).
 */
export function checkRedeemable(state: AttestationState, check: RedeemCheck): { attestation: CaptureAttestedData; alreadyRedeemed: boolean } {
  // Foreign, unknown and not-yet-attested look the same: existence is not revealed across accounts.
  if (state.status === 'none' || state.status === 'issued' || state.accountId !== check.account_id || state.captureId !== check.attestation_id) {
    throw notFound();
  }
  const alreadyRedeemed = state.status === 'redeemed' && state.verificationId === check.verification_id;
  if (state.status === 'redeemed' && !alreadyRedeemed) throw notFound('The attestation has already been used for another verification.');
  if (!alreadyRedeemed && check.now >= new Date(state.attestation.expires_at)) {
    throw notFound(`The attestation expired at ${state.attestation.expires_at}.`);
  }
  const { attestation } = state;
  const mismatched = [
    attestation.image_sha256 !== check.image_sha256.toLowerCase() ? 'image' : null,
    attestation.raw_sha256 !== (check.raw_sha256?.toLowerCase() ?? null) ? 'raw' : null,
  ].filter((part) => part !== null);
  if (mismatched.length > 0) {
    throw new AppError('HASH_MISMATCH', `The uploaded files do not match the attestation (${mismatched.map((part) => `"${part}"`).join(' and ')} differ${mismatched.length === 1 ? 's' : ''}).`, {
      suggestion: attestation.raw_sha256
        ? 'Upload exactly the image and RAW files that were hashed and signed on the device.'
        : 'Upload exactly the image file that was hashed and signed on the device, without a RAW (the attestation covers none).',
      details: { mismatched },
    });
  }
  return { attestation, alreadyRedeemed };
}

export const attestationDecider: Decider<AttestationState, AttestationCommand, typeof attestationEvents> = {
  catalogue: attestationEvents,
  initialState: () => ({ status: 'none' }),
  evolve(state, event) {
    switch (event.type) {
      case 'CaptureChallengeIssued':
        return {
          status: 'issued',
          captureId: event.data.capture_id,
          accountId: event.data.account_id,
          issuedAt: new Date(event.data.issued_at),
          expiresAt: new Date(event.data.expires_at),
        };
      case 'CaptureAttested':
        return state.status === 'issued' ? { ...state, status: 'attested', attestation: event.data } : state;
      case 'AttestationRedeemed':
        return state.status === 'attested' ? { ...state, status: 'redeemed', verificationId: event.data.verification_id } : state;
      default:
        return assertNever(event);
    }
  },
  decide(command, state): AttestationEvent[] {
    switch (command.type) {
      case 'IssueChallenge':
        if (state.status !== 'none') throw new AppError('CONFLICT', 'This capture id is already in use.');
        return [
          {
            type: 'CaptureChallengeIssued',
            data: {
              capture_id: command.capture_id,
              nonce_sha256: command.nonce_sha256,
              account_id: command.account_id,
              issued_at: command.now.toISOString(),
              expires_at: new Date(command.now.getTime() + CHALLENGE_TTL_MS).toISOString(),
            },
          },
        ];
      case 'AttestCapture': {
        if (state.status === 'none' || state.accountId !== command.account_id) {
          throw invalid('The challenge nonce is unknown (or was issued to other credentials).');
        }
        if (state.status !== 'issued') throw invalid('The challenge nonce has already been used; every nonce is single-use.');
        if (command.now >= state.expiresAt) throw invalid(`The challenge nonce expired at ${state.expiresAt.toISOString()}.`);
        const { payload } = command;
        const timeConsistent = captureTimeConsistent(new Date(payload.captured_at), state.issuedAt, command.now);
        return [
          {
            type: 'CaptureAttested',
            data: {
              attestation_id: state.captureId,
              account_id: state.accountId,
              attested_at: command.now.toISOString(),
              expires_at: new Date(command.now.getTime() + ATTESTATION_TTL_MS).toISOString(),
              jws: command.jws,
              image_sha256: payload.image_sha256,
              raw_sha256: payload.raw_sha256,
              captured_at: new Date(payload.captured_at).toISOString(),
              device_fingerprint_id: command.device_fingerprint_id,
              camera_fingerprint_id: cameraFingerprintId(payload.camera),
              sequence_number: payload.sequence_number,
              capture_gps_latitude: payload.gps?.latitude ?? null,
              capture_gps_longitude: payload.gps?.longitude ?? null,
              jailbreak_indicators: jailbreakIndicators(payload.integrity),
              integrity_score: integrityScore(payload.integrity),
              security_score: securityScore(payload.integrity, timeConsistent),
            },
          },
        ];
      }
      case 'RedeemAttestation': {
        const { alreadyRedeemed } = checkRedeemable(state, command);
        if (alreadyRedeemed) return [];
        return [
          {
            type: 'AttestationRedeemed',
            data: { attestation_id: command.attestation_id, verification_id: command.verification_id, redeemed_at: command.now.toISOString() },
          },
        ];
      }
      default:
        return assertNever(command);
    }
  },
};
