import { z } from 'zod';
import { assuranceLevels } from '../../analysis/types.js';
import { supportedRawFormats } from '../../analysis/raw/index.js';
import { confirmationSchema } from '../../core/http/schemas.js';
import { redirect, route, type RouteSpec } from '../../core/http/route-spec.js';
import { queryInteger } from '../../core/http/query-integer.js';
import type { AppDeps } from '../../core/module/deps.js';
import { extensionListParameters, extensionsOf, searchDescription, type ResourceExtension } from '../../core/module/extensions.js';
import { claimVerifications, createVerification, deleteVerification, fileUrl, getVerification, listVerifications, UPLOAD_PARTS, type FileKind } from './use-cases.js';
import { verificationIdParam } from './params.js';
import { verificationSchema } from './view.js';

/** The `assurance_level` filter's description (its values: the grading's levels). */
const ASSURANCE_LEVEL_FILTER =
  `Comma-separated subset of ${assuranceLevels.join(', ')}: only the verifications whose assurance_level (the field each item shows, as grading recorded it) is one of them. ` +
  'A verification not graded yet (assurance_level null) matches none; one that failed after it was graded keeps its level (add status=completed for finished ones only). ' +
  'An unknown level is refused with 422 VALIDATION_ERROR.';

/** What the legacy `result` filter admits, exactly (docs/verdicts.md "The legacy `result` and the `assurance_level` filter"). */
const RESULT_FILTER =
  'Legacy (clients key on assurance_level): the stored boolean result. true: graded verified or provisional (a RAW+image pair), or provenance (image-only). ' +
  'false: every other graded verification, i.e. assurance_level unrated or flagged in either mode. So false includes unsigned plain images (unrated, no evidence), ' +
  'valid Content Credentials from an untrusted or unchecked signer (unrated), AI-declared files (unrated) and pairs the evidence cannot decide (unrated), beside the flagged ones (tampered, mismatched): ' +
  'it is not a judgement against them. To list the flagged ones only, use assurance_level=flagged. Verifications not graded yet (result null) match neither value.';

/**
 * The list's query: its own parameters, then those other features' extensions filter on (tags,
 * tag_match: core/module/extensions.ts), which also complete the search parameter's description. One
 * schema for the route, its OpenAPI parameters and the MCP tool's input.
 */
export function listQuery(extensions: readonly ResourceExtension[]) {
  const others = extensionsOf(extensions, 'verification');
  const own = {
    offset: queryInteger({ min: 0, default: 0 }),
    size: queryInteger({ min: 1, max: 100, default: 20 }),
    sort_by: z.string().default('created_at'),
    sort_order: z.string().default('desc'),
    search: z.string().max(200).optional().describe(searchDescription(['the file name (part of it, case-insensitive)', 'the id', 'a photo hash (sha256:<hex> or <hex>)'], others)),
    status: z.string().optional(),
    assurance_level: z.string().max(200).optional().describe(ASSURANCE_LEVEL_FILTER),
    result: z.enum(['true', 'false']).optional().describe(RESULT_FILTER),
  };
  return z.strictObject({ ...own, ...extensionListParameters(others, own) });
}

export const listEnvelope = z
  .object({ items: z.array(verificationSchema), total: z.number().int(), offset: z.number().int(), size: z.number().int(), total_pages: z.number().int() })
  .openapi('VerificationList');

export const uploadBody = z
  .object({
    image: z.string().openapi({ type: 'string', format: 'binary' }).describe('The image. Pair mode: JPEG or HEIF/HEIC. Image-only: JPEG, PNG, WebP, HEIF/HEIC, AVIF, TIFF or GIF.'),
    raw: z.string().optional().openapi({ type: 'string', format: 'binary' }).describe(`The camera RAW, named by its content (the file name is ignored): ${supportedRawFormats}, the formats LibRaw decodes; whether a given file decodes is LibRaw's answer on its bytes. Omit for image-only.`),
    attestation_id: z.string().optional(),
  })
  .openapi('VerificationUpload');

const claimResponse = z.object({ claimed: z.number().int(), verification_ids: z.array(z.uuid()) }).openapi('ClaimResult');

export function verificationRoutes(deps: AppDeps): RouteSpec[] {
  const fileRoute = (path: string, summary: string, kind: FileKind) =>
    route({
      method: 'get',
      path,
      tag: 'verifications',
      summary,
      auth: 'any',
      params: verificationIdParam,
      responses: { 302: { description: 'Redirect to a pre-signed URL valid for 1 hour' }, 404: { description: 'VERIFICATION_NOT_FOUND' } },
      handler: async ({ params, principal }) => redirect(await fileUrl(deps, principal, params.verification_id, kind)),
    });

  return [
    route({
      method: 'post',
      path: '/v1/verifications/claim',
      tag: 'verifications',
      summary: "Move an anonymous user's unclaimed verifications into your account",
      description:
        'Idempotent: claiming again returns claimed 0. Only verifications moved by this call are listed. Claimed records do not consume quota. Verifications older than 30 days cannot be claimed.',
      auth: 'any',
      body: z.strictObject({ anonymous_user_id: z.string().min(1).max(100) }).openapi('ClaimRequest'),
      responses: {
        200: { description: 'Claimed', schema: claimResponse },
        409: { description: 'ALREADY_CLAIMED: the verifications belong to another account' },
        410: { description: 'CLAIM_EXPIRED: older than the 30-day claim window' },
        429: { description: 'RATE_LIMIT_EXCEEDED: too many claim attempts' },
      },
      handler: async ({ body, call }) => ({ status: 200, body: await claimVerifications(deps, call, body.anonymous_user_id) }),
    }),
    route({
      method: 'post',
      path: '/v1/verifications/',
      tag: 'verifications',
      summary: 'Create a verification (multipart: image, optional raw, optional attestation_id)',
      description: 'A RAW+image pair (raw_pair) consumes quota; image-only does not. Files are checked by content, hashed (SHA-256, SHA-512) while streaming, and analysed asynchronously: poll GET /v1/verifications/{id}.',
      auth: 'any',
      multipart: uploadBody,
      responses: {
        201: {
          description: 'Queued',
          schema: z
            .object({
              id: z.uuid(),
              security_score: z.number().optional(),
            })
            .openapi('VerificationCreated'),
        },
        400: { description: 'File of the wrong format, empty or truncated; invalid attestation format or unknown attestation_id' },
        402: { description: 'QUOTA_EXCEEDED: monthly quota and overage budget used' },
        413: { description: 'File larger than MAX_UPLOAD_BYTES' },
        422: { description: 'HASH_MISMATCH: the files differ from the attestation; or a malformed request' },
      },
      handler: async ({ call, upload }) => ({
        status: 201,
        body: await createVerification(deps, call, {
          receive: () => upload({ ...UPLOAD_PARTS, maxBytes: deps.config.MAX_UPLOAD_BYTES }),
        }),
      }),
    }),
    route({
      method: 'get',
      path: '/v1/verifications/',
      tag: 'verifications',
      summary: 'List your verifications',
      auth: 'any',
      query: listQuery(deps.extensions),
      responses: {
        200: { description: 'List envelope', schema: listEnvelope },
        400: { description: 'Invalid status filter or sort parameter (VALIDATION_ERROR)' },
        422: { description: 'VALIDATION_ERROR: an unknown assurance_level (in the envelope, naming the levels); or a malformed query (the list form)' },
      },
      handler: async ({ query, principal }) => ({ status: 200, body: await listVerifications(deps, principal, query) }),
    }),
    route({
      method: 'get',
      path: '/v1/verifications/{verification_id}',
      tag: 'verifications',
      summary: 'Read a verification',
      auth: 'any',
      params: verificationIdParam,
      responses: { 200: { description: 'Verification', schema: verificationSchema }, 404: { description: 'VERIFICATION_NOT_FOUND (also when not yours)' } },
      handler: async ({ params, principal }) => ({ status: 200, body: await getVerification(deps, principal, params.verification_id) }),
    }),
    route({
      method: 'delete',
      path: '/v1/verifications/{verification_id}',
      tag: 'verifications',
      summary: 'Delete a verification permanently, with its files',
      auth: 'any',
      params: verificationIdParam,
      responses: { 200: { description: 'Deleted', schema: confirmationSchema }, 404: { description: 'VERIFICATION_NOT_FOUND' } },
      handler: async ({ params, call }) => {
        await deleteVerification(deps, call, params.verification_id);
        return { status: 200, body: { detail: 'Verification deleted.' } };
      },
    }),
    fileRoute('/v1/verifications/{verification_id}/renditions/thumbnail', 'Redirect to the thumbnail', 'thumbnail'),
    fileRoute('/v1/verifications/{verification_id}/image', 'Redirect to the image: the C2PA-signed one when it exists, else the upload', 'image'),
    fileRoute('/v1/verifications/{verification_id}/renditions/signed/original', 'Redirect to the signed original with the badge strip (verified pairs only)', 'badge'),
  ];
}
