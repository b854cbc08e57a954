import { z } from 'zod';
import { route, type RouteSpec } from '../../core/http/route-spec.js';
import type { AppDeps } from '../../core/module/deps.js';
import { MAX_JWS_LENGTH } from './format.js';
import { attestCapture, issueChallenge } from './use-cases.js';

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
    attestation_id: z.uuid().describe('Pass as attestation_id to POST /v1/verifications/ (or to the MCP tool verify_pair) with the same credentials; single use.'),
    security_score: z.number(),
    integrity_score: z.number(),
    device_fingerprint_id: z.string().describe('RFC 7638 SHA-256 thumbprint (base64url) of the device public key.'),
    camera_fingerprint_id: z.string().nullable(),
    jailbreak_indicators: z.array(z.string()),
    expires_at: z.string().describe('Upload the files before this time (24 hours).'),
  })
  .openapi('CaptureAttestation');

export function captureRoutes(deps: AppDeps): RouteSpec[] {
  return [
    route({
      method: 'post',
      path: '/capture/challenge',
      tag: 'capture',
      summary: 'Get a single-use challenge nonce to sign in a capture attestation',
      auth: 'any',
      responses: { 201: { description: 'Challenge issued', schema: challengeResponse } },
      handler: async ({ call }) => ({ status: 201, headers: { 'Cache-Control': 'no-store' }, body: await issueChallenge(deps, call) }),
    }),
    route({
      method: 'post',
      path: '/capture/attestation',
      tag: 'capture',
      summary: 'Validate a signed capture attestation; yields the attestation_id for POST /v1/verifications/',
      description: 'Use the same credentials as for the challenge. 400 INVALID_ATTESTATION when the JWS is malformed, not ES256, signed by another key than the embedded one, its payload invalid, or its nonce unknown, expired or already used.',
      auth: 'any',
      body: attestationBody,
      responses: {
        201: { description: 'Attestation accepted', schema: attestationResponse },
        400: { description: 'INVALID_ATTESTATION' },
      },
      handler: async ({ body, call }) => ({ status: 201, body: await attestCapture(deps, call, body.attestation) }),
    }),
  ];
}
