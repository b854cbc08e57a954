import crypto from 'node:crypto';
import { commandContext, execute } from '../../core/es/commands.js';
import type { AppDeps } from '../../core/module/deps.js';
import { AppError } from '../../core/errors.js';
import { callerOf, type Call } from '../../core/principal.js';
import { attestationDecider, captureStream } from './decider.js';
import { verifyCaptureJws } from './format.js';
import { findChallengeByNonceHash } from '../../../projections/attestations/index.js';

const nonceHash = (nonce: string) => crypto.createHash('sha256').update(nonce).digest('hex');

/** Issues a single-use nonce for a device to sign; only its hash is kept. */
export async function issueChallenge(deps: AppDeps, call: Call): Promise<{ nonce: string; expires_at: string }> {
  const captureId = crypto.randomUUID();
  const nonce = crypto.randomBytes(32).toString('base64url');
  const context = commandContext(deps, call);
  const { events } = await execute(deps, call, captureStream(captureId), attestationDecider, {
    type: 'IssueChallenge',
    capture_id: captureId,
    nonce_sha256: nonceHash(nonce),
    account_id: callerOf(call).accountId,
    now: context.now,
  }, context);
  const issued = events[0]!;
  if (issued.type !== 'CaptureChallengeIssued') throw new Error(`unexpected ${issued.type}`);
  return { nonce, expires_at: issued.data.expires_at };
}

/** Verifies a signed capture attestation against its challenge and records the scored facts. */
export async function attestCapture(deps: AppDeps, call: Call, jws: string) {
  const { payload, deviceThumbprint } = await verifyCaptureJws(jws);
  const challenge = await findChallengeByNonceHash(deps.knex, nonceHash(payload.nonce));
  if (!challenge) {
    throw new AppError('INVALID_ATTESTATION', 'The challenge nonce is unknown (or was issued to other credentials).', {
      suggestion: 'Request a challenge with POST /capture/challenge and put its nonce in the signed payload.',
    });
  }
  const context = commandContext(deps, call);
  const { events } = await execute(deps, call, captureStream(challenge.capture_id), attestationDecider, {
    type: 'AttestCapture',
    account_id: callerOf(call).accountId,
    jws,
    payload,
    device_fingerprint_id: deviceThumbprint,
    now: context.now,
  }, context);
  const attested = events[0]!;
  if (attested.type !== 'CaptureAttested') throw new Error(`unexpected ${attested.type}`);
  const d = attested.data;
  return {
    attestation_id: d.attestation_id,
    security_score: d.security_score,
    integrity_score: d.integrity_score,
    device_fingerprint_id: d.device_fingerprint_id,
    camera_fingerprint_id: d.camera_fingerprint_id,
    jailbreak_indicators: d.jailbreak_indicators,
    expires_at: d.expires_at,
  };
}
