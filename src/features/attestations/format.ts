import { calculateJwkThumbprint, compactVerify, decodeProtectedHeader, EmbeddedJWK, errors as joseErrors, type JWK } from 'jose';
import { z } from 'zod';
import { AppError } from '../../core/errors.js';

/**
 * The capture attestation wire format (docs/capture-attestation.md): a compact JWS, ES256,
 * protected header `{alg: "ES256", typ: "pv-capture+jws", jwk: <device public key>}`, over
 * the JSON payload below. Everything here is pure parsing and checking; whether the nonce is
 * live is the decider's business.
 */
export const CAPTURE_JWS_TYPE = 'pv-capture+jws';
/** A JWS larger than this is not an attestation (the payload is a few hundred bytes). */
export const MAX_JWS_LENGTH = 16_384;

const sha256Hex = z.string().regex(/^[0-9a-f]{64}$/, 'Expected a lowercase hex SHA-256 digest (64 characters).');
const text = z.string().trim().min(1).max(200);

export const capturePayloadSchema = z.strictObject({
  v: z.literal(1),
  nonce: z.string().min(16).max(200),
  image_sha256: sha256Hex,
  raw_sha256: sha256Hex.nullable().default(null),
  captured_at: z.iso.datetime({ offset: true }),
  device: z.strictObject({ model: text.optional(), os: text.optional(), app_version: text.optional() }).optional(),
  camera: z.strictObject({ make: text, model: text, serial: text.optional(), module: text.optional() }).nullable().default(null),
  sequence_number: z.int().min(0).nullable().default(null),
  gps: z
    .strictObject({ latitude: z.number().min(-90).max(90), longitude: z.number().min(-180).max(180), accuracy_m: z.number().nonnegative().optional() })
    .nullable()
    .default(null),
  integrity: z.strictObject({
    app_integrity: z.enum(['verified', 'unverified', 'failed', 'unavailable']),
    hardware_backed_key: z.boolean(),
    jailbreak_indicators: z.array(text).max(50).default([]),
    emulator: z.boolean().default(false),
    debugger_attached: z.boolean().default(false),
    mock_location: z.boolean().default(false),
  }),
});
export type CapturePayload = z.infer<typeof capturePayloadSchema>;
export type CaptureIntegrity = CapturePayload['integrity'];

export interface VerifiedCapture {
  payload: CapturePayload;
  /** RFC 7638 SHA-256 thumbprint (base64url) of the embedded device public key. */
  deviceThumbprint: string;
}

const SUGGESTION = 'Sign the payload with the device key as a compact JWS (ES256) whose protected header carries the public key as "jwk" and typ "pv-capture+jws"; see docs/capture-attestation.md.';

function invalid(message: string): AppError {
  return new AppError('INVALID_ATTESTATION', message, { suggestion: SUGGESTION });
}

/** Checks form, header, signature (with the embedded key) and payload schema; throws INVALID_ATTESTATION. */
export async function verifyCaptureJws(jws: string): Promise<VerifiedCapture> {
  if (!/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/.test(jws)) {
    throw invalid('The attestation is not a compact JWS (three base64url parts: header.payload.signature).');
  }
  let header: ReturnType<typeof decodeProtectedHeader>;
  try {
    header = decodeProtectedHeader(jws);
  } catch {
    throw invalid('The attestation header is not base64url-encoded JSON.');
  }
  if (header.alg !== 'ES256') throw invalid(`The attestation must be signed with ES256 (the header says ${JSON.stringify(header.alg ?? null)}).`);
  if (header.typ !== CAPTURE_JWS_TYPE) throw invalid(`The attestation header must have typ "${CAPTURE_JWS_TYPE}".`);
  const jwk = header.jwk as JWK | undefined;
  if (!jwk || jwk.kty !== 'EC' || jwk.crv !== 'P-256' || 'd' in jwk) {
    throw invalid('The attestation header must embed the device public key as "jwk" (EC, P-256, no private part).');
  }

  let payloadBytes: Uint8Array;
  try {
    ({ payload: payloadBytes } = await compactVerify(jws, EmbeddedJWK, { algorithms: ['ES256'] }));
  } catch (error) {
    if (error instanceof joseErrors.JWSSignatureVerificationFailed) {
      throw invalid('The attestation signature does not verify with the device key embedded in its header.');
    }
    throw invalid(`The attestation is not a valid JWS: ${(error as Error).message}`);
  }

  let json: unknown;
  try {
    json = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(payloadBytes));
  } catch {
    throw invalid('The attestation payload is not UTF-8 JSON.');
  }
  const parsed = capturePayloadSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const where = issue.path.length ? issue.path.join('.') : '(payload)';
    const what = issue.code === 'unrecognized_keys' ? `unknown field(s) ${issue.keys.join(', ')}` : issue.message;
    throw invalid(`The attestation payload is invalid at ${where}: ${what}.`);
  }
  const deviceThumbprint = await calculateJwkThumbprint({ kty: 'EC', crv: 'P-256', x: jwk.x, y: jwk.y }, 'sha256');
  return { payload: parsed.data, deviceThumbprint };
}
