import crypto from 'node:crypto';
import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import { Router, type Response } from 'express';
import { z } from 'zod';
import { detectRawFormat, describeFile } from '../../analysis/raw/index.js';
import { handleCommand } from '../../core/decider.js';
import { usageDecider, usageStream } from '../usage/decider.js';
import { monthOf } from '../usage/plans.js';
import { verificationDecider, verificationStream } from './decider.js';
import { verificationStatuses, type StoredFile } from './events.js';
import type { CaptureFacts } from '../attestations/redeem.js';
import { FileError, NotFoundError, ValidationError } from '../../core/errors.js';
import { detectImageFormat, mimeTypes, type ImageFormat } from '../../provenance/format.js';
import { anonymousPrincipal, type Principal } from '../../adapters/http/auth.js';
import { newAnonymousUserId } from './anonymous.js';
import { redeemAttestation, validateAttestationForUpload } from '../attestations/redeem.js';
import { commandContext, execute } from '../../core/commands.js';
import type { CommandContext } from '../../core/decider.js';
import type { ApiDeps } from '../../core/deps.js';
import { confirmationSchema } from '../../adapters/http/openapi.js';
import { defineRoute } from '../../adapters/http/route.js';
import { receiveUpload, type UploadedFile } from '../../adapters/http/uploads.js';
import { RequestValidationError } from '../../adapters/http/validation.js';
import { toVerificationView, verificationSchema } from './view.js';

const PAIR_IMAGE_FORMATS: ImageFormat[] = ['jpeg', 'heif'];
const IMAGE_ONLY_FORMATS: ImageFormat[] = ['jpeg', 'png', 'webp', 'heif', 'avif', 'tiff', 'gif'];
const SORT_FIELDS = ['created_at', 'updated_at', 'status'] as const;
const SHORT_CODE_ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
const URL_TTL_SECONDS = 3600;

type CaptureRecord = CaptureFacts & { attestation_id: string };

const idParam = z.strictObject({ verification_id: z.uuid() });

const listQuery = z.strictObject({
  offset: z.coerce.number().int().min(0).default(0),
  size: z.coerce.number().int().min(1).max(100).default(20),
  sort_by: z.string().default('created_at'),
  sort_order: z.string().default('desc'),
  search: z.string().max(200).optional(),
  status: z.string().optional(),
  result: z.enum(['true', 'false']).optional(),
  tags: z.string().optional(),
  tag_match: z.enum(['all', 'any']).default('all'),
  request_id: z.uuid().optional(),
});

const listEnvelope = z
  .object({ items: z.array(verificationSchema), total: z.number().int(), offset: z.number().int(), size: z.number().int(), total_pages: z.number().int() })
  .openapi('VerificationList');

const uploadBody = z
  .object({
    image: z.string().openapi({ type: 'string', format: 'binary' }).describe('The image. Pair mode: JPEG or HEIF/HEIC. Image-only: JPEG, PNG, WebP, HEIF/HEIC, AVIF, TIFF or GIF.'),
    raw: z.string().optional().openapi({ type: 'string', format: 'binary' }).describe('The camera RAW (CR2, CR3, ARW, NEF, DNG, RAF, ORF, RW2, PEF, SRW). Omit for image-only.'),
    attestation_id: z.string().optional(),
  })
  .openapi('VerificationUpload');

function shortCode(): string {
  const bytes = crypto.randomBytes(6);
  return `L-${[...bytes].map((b) => SHORT_CODE_ALPHABET[b % 32]).join('')}`;
}

/** Content decides the format, never the name; a clear 400 says what the file actually is. */
function checkImage(file: UploadedFile, pair: boolean): { format: ImageFormat; contentType: string } {
  if (file.staged.size === 0) throw new FileError('UNSUPPORTED_FORMAT', 'The image file is empty (0 bytes).', { suggestion: 'Attach the image file itself.' });
  // Most RAW formats are TIFF containers: look for a RAW first so a CR2 is not taken for a TIFF.
  const raw = detectRawFormat(file.staged.head);
  const format = raw ? undefined : detectImageFormat(file.staged.head);
  const allowed = pair ? PAIR_IMAGE_FORMATS : IMAGE_ONLY_FORMATS;
  if (!format || !allowed.includes(format)) {
    const actual = raw ? `a camera RAW (${raw})` : format ? format.toUpperCase() : describeFile(file.staged.head);
    throw new FileError('UNSUPPORTED_FORMAT', `The image part is ${actual}, which is not accepted ${pair ? 'with a RAW' : 'for image-only verification'}.`, {
      suggestion: pair ? 'With a RAW, send the JPEG or HEIF/HEIC rendering in "image" and the RAW in "raw".' : 'Send a JPEG, PNG, WebP, HEIF/HEIC, AVIF, TIFF or GIF.',
    });
  }
  if (format === 'jpeg' && !(file.staged.tail.at(-2) === 0xff && file.staged.tail.at(-1) === 0xd9)) {
    throw new FileError('CORRUPT_FILE', 'The JPEG is truncated: it does not end with an end-of-image marker.', { suggestion: 'Upload the complete file.' });
  }
  return { format, contentType: mimeTypes[format] };
}

function checkRaw(file: UploadedFile): string {
  if (file.staged.size === 0) throw new FileError('UNSUPPORTED_FORMAT', 'The RAW file is empty (0 bytes).', { suggestion: 'Attach the camera RAW file itself.' });
  const format = detectRawFormat(file.staged.head);
  if (!format) {
    throw new FileError('UNSUPPORTED_FORMAT', `The raw part is ${describeFile(file.staged.head)}, not a camera RAW.`, {
      suggestion: 'Send a CR2, CR3, ARW, NEF, DNG, RAF, ORF, RW2, PEF or SRW file in "raw".',
    });
  }
  return format;
}

export function verificationRoutes(deps: ApiDeps, registry: OpenAPIRegistry): Router {
  const router = Router();

  const owned = async (principal: Principal, id: string) => {
    const row = await deps.knex('verifications').where({ id }).first();
    // Another account's verification is indistinguishable from a missing one.
    if (!row || row.account_id !== principal.accountId) {
      throw new NotFoundError('VERIFICATION_NOT_FOUND', 'Verification not found.', { suggestion: 'List your verifications with GET /v1/verifications/.' });
    }
    return row;
  };
  const renditions = (row: Record<string, any>): Record<string, { blob_key: string; content_type: string }> =>
    typeof row.renditions === 'string' ? JSON.parse(row.renditions) : (row.renditions ?? {});
  const signedUrl = (key: string, contentType: string) => deps.urlSigner.sign(key, { now: deps.now(), ttlSeconds: URL_TTL_SECONDS, contentType });
  /** Rows to views, with the results of all of them read in one query. */
  const views = async (rows: Record<string, any>[]) => {
    const results = rows.length
      ? await deps.knex('verification_results').whereIn('verification_id', rows.map((r) => r.id)).orderBy([{ column: 'created_at' }, { column: 'analysis' }])
      : [];
    return rows.map((row) => {
      const thumb = renditions(row).thumbnail;
      const own = results.filter((r) => r.verification_id === row.id);
      return toVerificationView(row, own, thumb ? signedUrl(thumb.blob_key, thumb.content_type) : '');
    });
  };
  /** Reserves one raw-pair verification in the account's month; 402 QUOTA_EXCEEDED past plan and budget. */
  const meter = async (accountId: string, verificationId: string, context: CommandContext) => {
    // An anonymous user has no account row: it gets the Free plan's quota.
    const account = (await deps.knex('accounts').where({ id: accountId }).first()) ?? { plan: 'free', monthly_budget_cap_eur: null };
    const month = monthOf(context.now);
    const stream = usageStream(accountId, month);
    const outcome = await deps.streamLocks.run(stream, () =>
      handleCommand(deps.store, stream, usageDecider, {
        type: 'Meter',
        account_id: accountId,
        month,
        verification_id: verificationId,
        plan: account.plan,
        budget_cap: account.monthly_budget_cap_eur === null ? null : Number(account.monthly_budget_cap_eur),
        now: context.now,
      }, context),
    );
    const metered = outcome.events[0];
    return { counted: true, overage: metered?.type === 'VerificationMetered' && metered.data.overage, price_eur: metered?.type === 'VerificationMetered' ? metered.data.price : 0 };
  };
  const releaseMetering = async (accountId: string, verificationId: string, context: CommandContext) => {
    const stream = usageStream(accountId, monthOf(context.now));
    await deps.streamLocks.run(stream, () => handleCommand(deps.store, stream, usageDecider, { type: 'Release', verification_id: verificationId, now: deps.now() }, context));
  };
  /** Redeems the attestation, commits the staged files and queues; removes what it committed if it fails. */
  const storeAndQueue = async (input: {
    id: string;
    principal: Principal;
    context: CommandContext;
    billing: { counted: boolean; overage: boolean; price_eur: number };
    attestationId: string | undefined;
    attested: { accountId: string; imageSha256: string; rawSha256: string | null };
    imageFile: UploadedFile;
    image: { format: ImageFormat; contentType: string };
    rawFile: UploadedFile | undefined;
    rawFormat: string | null;
    res: Response;
  }): Promise<CaptureRecord | null> => {
    const { id, principal, context, attestationId, attested, res } = input;
    const committed: string[] = [];
    const commit = async (file: UploadedFile, name: string, format: string, contentType: string): Promise<StoredFile> => {
      const stored = await file.staged.commit(`verifications/${id}/${name}.${format.toLowerCase()}`);
      committed.push(stored.key);
      return { blob_key: stored.key, filename: file.filename.slice(0, 255), format, content_type: contentType, size: stored.size, sha256: stored.sha256, sha512: stored.sha512 };
    };
    try {
      const capture = attestationId === undefined ? null : { attestation_id: attestationId, ...(await redeemAttestation(deps, res, { attestationId, verificationId: id, ...attested }, context)) };
      const storedImage = await commit(input.imageFile, 'image', input.image.format, input.image.contentType);
      const storedRaw = input.rawFile && input.rawFormat ? await commit(input.rawFile, 'raw', input.rawFormat, 'application/octet-stream') : null;
      await execute(deps, res, verificationStream(id), verificationDecider, {
        type: 'Queue',
        data: {
          verification_id: id,
          account_id: principal.accountId,
          mode: storedRaw ? 'raw_pair' : 'image_only',
          name: storedImage.filename,
          short_code: shortCode(),
          pipeline_build: deps.pipelineBuild,
          image: storedImage,
          raw: storedRaw,
          queued_at: context.now.toISOString(),
          billing: input.billing,
          capture,
          anonymous: principal.via === 'anonymous',
        },
      }, context);
      return capture;
    } catch (error) {
      await Promise.all(committed.map((key) => deps.blobs.delete(key)));
      throw error;
    }
  };
  const redirect = (url: string) => ({ status: 302, headers: { Location: url, 'Cache-Control': 'no-store' } });

  defineRoute(router, registry, deps, {
    method: 'post',
    path: '/v1/verifications/',
    tag: 'verifications',
    summary: 'Create a verification (multipart: image, optional raw, optional attestation_id)',
    description: 'A RAW+image pair (raw_pair) consumes quota; image-only does not. Files are checked by content, hashed (SHA-256, SHA-512) while streaming, and analysed asynchronously: poll GET /v1/verifications/{id}.',
    auth: 'none',
    multipart: uploadBody,
    responses: {
      201: {
        description: 'Queued',
        schema: z
          .object({
            id: z.uuid(),
            security_score: z.number().optional(),
            anonymous_user_id: z.string().optional().describe('Keyless uploads only: the bearer secret that reads (X-Anonymous-User-Id) and later claims these verifications. Keep it.'),
          })
          .openapi('VerificationCreated'),
      },
      429: { description: 'Too many keyless uploads from this address' },
      400: { description: 'File of the wrong format, empty or truncated; invalid attestation format or unknown attestation_id' },
      402: { description: 'QUOTA_EXCEEDED: monthly quota and overage budget used' },
      413: { description: 'File larger than MAX_UPLOAD_BYTES' },
      422: { description: 'HASH_MISMATCH: the files differ from the attestation; or a malformed request' },
    },
    async handler({ principal: caller, req, res }) {
      // Keyless callers verify as an anonymous user: rate-limited, free-plan quota, claimable later.
      let anonymousUserId: string | undefined;
      let principal = caller;
      if (!principal) {
        await deps.anonymousLimiter.take(req.ip ?? 'unknown', 'anonymous uploads from this address');
        anonymousUserId = req.get('x-anonymous-user-id')?.trim() || newAnonymousUserId();
        principal = anonymousPrincipal(anonymousUserId);
      }
      const upload = await receiveUpload(req, res, deps.blobs, { fileFields: ['image', 'raw'], textFields: ['attestation_id'], maxBytes: deps.config.MAX_UPLOAD_BYTES });
      const staged = [...upload.files.values()];
      try {
        const imageFile = upload.files.get('image');
        if (!imageFile) throw new RequestValidationError([{ loc: ['body', 'image'], msg: 'Field required.', type: 'missing' }]);
        const rawFile = upload.files.get('raw');
        const image = checkImage(imageFile, Boolean(rawFile));
        const rawFormat = rawFile ? checkRaw(rawFile) : null;
        const attestationId = upload.fields.attestation_id;
        const attested = { accountId: principal.accountId, imageSha256: imageFile.staged.sha256, rawSha256: rawFile?.staged.sha256 ?? null };
        // Checked before anything is stored or metered; consumed only once the rest has passed.
        if (attestationId !== undefined) await validateAttestationForUpload(deps, { attestationId, ...attested });

        const id = crypto.randomUUID();
        const context = commandContext(deps, req, principal);
        const billing = rawFile ? await meter(principal.accountId, id, context) : { counted: false, overage: false, price_eur: 0 };
        let capture: CaptureRecord | null;
        try {
          capture = await storeAndQueue({ id, principal, context, billing, attestationId, attested, imageFile, image, rawFile, rawFormat, res });
        } catch (error) {
          if (billing.counted) await releaseMetering(principal.accountId, id, context);
          throw error;
        }
        deps.workflows.submit(id);
        return {
          status: 201,
          body: { id, ...(capture ? { security_score: capture.security_score } : {}), ...(anonymousUserId ? { anonymous_user_id: anonymousUserId } : {}) },
        };
      } catch (error) {
        await Promise.all(staged.map((f) => f.staged.discard()));
        throw error;
      }
    },
  });

  defineRoute(router, registry, deps, {
    method: 'get',
    path: '/v1/verifications/',
    tag: 'verifications',
    summary: 'List your verifications',
    auth: 'any_or_anonymous',
    query: listQuery,
    responses: { 200: { description: 'List envelope', schema: listEnvelope }, 400: { description: 'Invalid status filter or sort parameter (VALIDATION_ERROR)' } },
    async handler({ query, principal }) {
      if (!(SORT_FIELDS as readonly string[]).includes(query.sort_by)) {
        throw new ValidationError(`Invalid sort_by "${query.sort_by}".`, { suggestion: `Use one of: ${SORT_FIELDS.join(', ')}.` });
      }
      if (!['asc', 'desc'].includes(query.sort_order)) {
        throw new ValidationError(`Invalid sort_order "${query.sort_order}".`, { suggestion: 'Use asc or desc.' });
      }
      const statuses = query.status?.split(',').map((s) => s.trim()).filter(Boolean) ?? [];
      const invalid = statuses.filter((s) => !(verificationStatuses as readonly string[]).includes(s));
      if (invalid.length) {
        throw new ValidationError(`Invalid status filter: ${invalid.join(', ')}.`, { suggestion: `Use a comma-separated subset of: ${verificationStatuses.join(', ')}.` });
      }
      const tags = query.tags?.split(',').map((t) => t.trim()).filter(Boolean) ?? [];
      if (tags.length > 10) throw new ValidationError('At most 10 tag names may be given in the tags filter.', { suggestion: 'Narrow the filter to 10 names.' });

      const base = deps.knex('verifications').where({ account_id: principal.accountId });
      if (statuses.length) base.whereIn('status', statuses);
      if (query.result) base.where({ result: query.result === 'true' });
      // Tags and verification requests arrive with their own features: until then no record carries one.
      if (tags.length || query.request_id) base.whereRaw('false');
      if (query.search) {
        const term = query.search.trim();
        const like = `%${term.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
        base.where((q) => {
          q.whereILike('name', like)
            .orWhereRaw('id::text = ?', [term.toLowerCase()])
            .orWhereRaw("image->>'sha256' = ?", [term.toLowerCase().replace(/^sha256:/, '')])
            .orWhereRaw("raw->>'sha256' = ?", [term.toLowerCase().replace(/^sha256:/, '')]);
        });
      }
      const counted = await base.clone().count<{ count: string }[]>('* as count');
      const total = Number(counted[0]?.count ?? 0);
      const rows = await base.clone().orderBy([{ column: query.sort_by, order: query.sort_order as 'asc' | 'desc' }, { column: 'id', order: 'asc' }]).offset(query.offset).limit(query.size);
      const items = await views(rows);
      return { status: 200, body: { items, total, offset: query.offset, size: items.length, total_pages: Math.ceil(total / query.size) } };
    },
  });

  defineRoute(router, registry, deps, {
    method: 'get',
    path: '/v1/verifications/{verification_id}',
    tag: 'verifications',
    summary: 'Read a verification',
    auth: 'any_or_anonymous',
    params: idParam,
    responses: { 200: { description: 'Verification', schema: verificationSchema }, 404: { description: 'VERIFICATION_NOT_FOUND (also when not yours)' } },
    async handler({ params, principal }) {
      const [view] = await views([await owned(principal, params.verification_id)]);
      return { status: 200, body: view };
    },
  });

  defineRoute(router, registry, deps, {
    method: 'delete',
    path: '/v1/verifications/{verification_id}',
    tag: 'verifications',
    summary: 'Delete a verification permanently, with its files',
    auth: 'any',
    params: idParam,
    responses: { 200: { description: 'Deleted', schema: confirmationSchema }, 404: { description: 'VERIFICATION_NOT_FOUND' } },
    async handler({ params, principal, req, res }) {
      await owned(principal, params.verification_id);
      const outcome = await execute(deps, res, verificationStream(params.verification_id), verificationDecider, { type: 'Delete', account_id: principal.accountId, now: deps.now() }, commandContext(deps, req, principal));
      for (const event of outcome.events) {
        if (event.type !== 'VerificationDeleted') continue;
        await Promise.all(event.data.blob_keys.map((key) => deps.blobs.delete(key)));
      }
      return { status: 200, body: { detail: 'Verification deleted.' } };
    },
  });

  const renditionRoute = (path: string, summary: string, pick: (row: Record<string, any>) => { blob_key: string; content_type: string } | undefined) =>
    defineRoute(router, registry, deps, {
      method: 'get',
      path,
      tag: 'verifications',
      summary,
      auth: 'any_or_anonymous',
      params: idParam,
      responses: { 302: { description: 'Redirect to a pre-signed URL valid for 1 hour' }, 404: { description: 'VERIFICATION_NOT_FOUND' } },
      async handler({ params, principal }) {
        const target = pick(await owned(principal, params.verification_id));
        if (!target) throw new NotFoundError('VERIFICATION_NOT_FOUND', 'This rendition does not exist for this verification.', { suggestion: 'Renditions appear when processing has completed.' });
        return redirect(signedUrl(target.blob_key, target.content_type));
      },
    });

  renditionRoute('/v1/verifications/{verification_id}/renditions/thumbnail', 'Redirect to the thumbnail', (row) => renditions(row).thumbnail);
  renditionRoute('/v1/verifications/{verification_id}/image', 'Redirect to the image: the C2PA-signed one when it exists, else the upload', (row) => {
    const image = typeof row.image === 'string' ? JSON.parse(row.image) : row.image;
    return renditions(row).signed_image ?? { blob_key: image.blob_key, content_type: image.content_type };
  });
  renditionRoute('/v1/verifications/{verification_id}/renditions/signed/original', 'Redirect to the signed original with the badge strip (verified pairs only)', (row) =>
    row.status === 'completed' && row.result === true ? renditions(row).badge : undefined,
  );

  return router;
}
