import crypto from 'node:crypto';
import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import { Router, type Request } from 'express';
import { z } from 'zod';
import { attestationDecider, captureStream } from './decider.js';
import { MAX_JWS_LENGTH, verifyCaptureJws } from './format.js';
import { AppError } from '../../core/errors.js';
import type { Principal } from '../../adapters/http/auth.js';
import { commandContext, execute } from '../../core/commands.js';
import type { ApiDeps } from '../../core/deps.js';
import { defineRoute } from '../../adapters/http/route.js';

const challengeResponse = z
  .object({
    nonce: z.string().describe('Single-use; put it in the signed payload. Never stored in clear by the service.'),
    expires_at: z.string().describe('Sign and submit the attestation before this time (5 minutes).'),
  })
  .openapi('CaptureChallenge');

const attestationBody = z
  .strictObject({
    attestation: z
      .string()
      .min(1)
      .max(MAX_JWS_LENGTH)
      .describe('Compact JWS (ES256, header typ "pv-capture+jws" with the device public key as "jwk") over the capture payload; see docs/capture-attestation.md.'),
  })
  .openapi('CaptureAttestationSubmit');

const attestationResponse = z
  .object({
    attestation_id: z.uuid().describe('Pass as attestation_id to POST /v1/verifications/ with the same credentials (or none); single use.'),
    security_score: z.number(),
    integrity_score: z.number(),
    device_fingerprint_id: z.string().describe('RFC 7638 SHA-256 thumbprint (base64url) of the device public key.'),
    camera_fingerprint_id: z.string().nullable(),
    jailbreak_indicators: z.array(z.string()),
    expires_at: z.string().describe('Upload the files before this time (24 hours).'),
  })
  .openapi('CaptureAttestation');

const nonceHash = (nonce: string) => crypto.createHash('sha256').update(nonce).digest('hex');

export function captureRoutes(deps: ApiDeps, registry: OpenAPIRegistry): Router {
  const router = Router();

  /** Keyless callers share one budget per client address; callers with credentials are accountable already. */
  const limitKeyless = async (principal: Principal | null, req: Request) => {
    if (principal) return;
    const key = `capture|${req.ip}`;
    await deps.captureLimiter.take(key, 'keyless capture requests');
  };

  defineRoute(router, registry, deps, {
    method: 'post',
    path: '/capture/challenge',
    tag: 'capture',
    summary: 'Get a single-use challenge nonce to sign in a capture attestation (keyless callers are rate-limited)',
    auth: 'none',
    responses: { 201: { description: 'Challenge issued', schema: challengeResponse }, 429: { description: 'Too many keyless requests' } },
    async handler({ principal, req, res }) {
      await limitKeyless(principal, req);
      const captureId = crypto.randomUUID();
      const nonce = crypto.randomBytes(32).toString('base64url');
      const context = commandContext(deps, req, principal);
      const { events } = await execute(deps, res, captureStream(captureId), attestationDecider, {
        type: 'IssueChallenge',
        capture_id: captureId,
        nonce_sha256: nonceHash(nonce),
        account_id: principal?.accountId ?? null,
        now: context.now,
      }, context);
      const issued = events[0]!;
      if (issued.type !== 'CaptureChallengeIssued') throw new Error(`unexpected ${issued.type}`);
      return { status: 201, headers: { 'Cache-Control': 'no-store' }, body: { nonce, expires_at: issued.data.expires_at } };
    },
  });

  defineRoute(router, registry, deps, {
    method: 'post',
    path: '/capture/attestation',
    tag: 'capture',
    summary: 'Validate a signed capture attestation; yields the attestation_id for POST /v1/verifications/',
    description: 'Use the same credentials (or none) as for the challenge. 400 INVALID_ATTESTATION when the JWS is malformed, not ES256, signed by another key than the embedded one, its payload invalid, or its nonce unknown, expired or already used.',
    auth: 'none',
    body: attestationBody,
    responses: {
      201: { description: 'Attestation accepted', schema: attestationResponse },
      400: { description: 'INVALID_ATTESTATION' },
      429: { description: 'Too many keyless requests' },
    },
    async handler({ body, principal, req, res }) {
      await limitKeyless(principal, req);
      const { payload, deviceThumbprint } = await verifyCaptureJws(body.attestation);
      const challenge = await deps.knex('capture_challenges').where({ nonce_sha256: nonceHash(payload.nonce) }).first();
      if (!challenge) {
        throw new AppError('INVALID_ATTESTATION', 'The challenge nonce is unknown (or was issued to other credentials).', {
          suggestion: 'Request a challenge with POST /capture/challenge and put its nonce in the signed payload.',
        });
      }
      const context = commandContext(deps, req, principal);
      const { events } = await execute(deps, res, captureStream(challenge.capture_id), attestationDecider, {
        type: 'AttestCapture',
        account_id: principal?.accountId ?? null,
        jws: body.attestation,
        payload,
        device_fingerprint_id: deviceThumbprint,
        now: context.now,
      }, context);
      const attested = events[0]!;
      if (attested.type !== 'CaptureAttested') throw new Error(`unexpected ${attested.type}`);
      const d = attested.data;
      return {
        status: 201,
        body: {
          attestation_id: d.attestation_id,
          security_score: d.security_score,
          integrity_score: d.integrity_score,
          device_fingerprint_id: d.device_fingerprint_id,
          camera_fingerprint_id: d.camera_fingerprint_id,
          jailbreak_indicators: d.jailbreak_indicators,
          expires_at: d.expires_at,
        },
      };
    },
  });

  return router;
}
