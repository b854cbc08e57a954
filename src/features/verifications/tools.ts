import { Readable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { z } from 'zod';
import type { UploadedFile } from '../../core/blob-store.js';
import type { AppDeps } from '../../core/module/deps.js';
import { AppError } from '../../core/errors.js';
import type { Call, Principal } from '../../core/principal.js';
import { cleanFileName } from '../../core/text/text.js';
import { fileNameInput } from '../../core/text/text-schemas.js';
import { tool, type ToolProgress, type ToolSpec } from '../../core/http/tool-spec.js';
import { openUpload, uploadIdSchema } from '../uploads/index.js';
import { anonymousPrincipal, readerOf } from './anonymous.js';
import { verificationStatuses } from './events.js';
import { verificationIdParam } from './params.js';
import { listEnvelope, listQuery, uploadBody } from './routes.js';
import { summarize } from './summary.js';
import { createVerification, getVerification, listVerifications } from './use-cases.js';
import { verificationSchema, type VerificationView } from './view.js';

/** Spec 6: poll every 20 s, give up after 10 minutes. A tool waits at most that long too. */
const POLL_GUIDANCE = 'Call get_verification with this verification_id every 20 seconds until status is completed or failed (give up after 10 minutes).';
const MAX_WAIT_SECONDS = 600;
/** Below the 60-second request timeout many MCP clients apply by default. */
const DEFAULT_WAIT_SECONDS = 45;
const TICK_MS = 1000;

const anonymousUserId = z
  .string()
  .max(100)
  .describe('Keyless callers only: the anonymous_user_id a previous keyless verification returned. Groups new verifications under it and reads them. Ignored when an API key is sent.');

/** A file: inline (base64), or the id of a pre-signed upload (create_upload) for large files. */
const fileInput = (what: string) =>
  z
    .union([
      z.strictObject({
        filename: fileNameInput().describe('The original file name.'),
        content_base64: z.base64().describe('The file bytes, base64-encoded (up to MCP_INLINE_MAX_BYTES decoded; larger files: create_upload).'),
      }),
      z.strictObject({ upload_id: uploadIdSchema.describe('From create_upload, after the file was PUT to its upload_url.') }),
    ])
    .describe(what);

const waitSeconds = z
  .number()
  .int()
  .min(0)
  .max(MAX_WAIT_SECONDS)
  .default(DEFAULT_WAIT_SECONDS)
  .describe('How long to wait for the result, sending progress notifications meanwhile (0: return at once). When it runs out the verification goes on; poll it with get_verification.');

const outcomeSchema = z.object({
  verification_id: z.uuid(),
  status: z.enum(verificationStatuses),
  done: z.boolean().describe('true when status is completed or failed.'),
  anonymous_user_id: z.string().optional().describe('Keyless calls only: the secret that reads these verifications (pass it to get_verification) and later moves them into an account (POST /v1/verifications/claim). Keep it.'),
  security_score: z.number().optional(),
  next_step: z.string().optional().describe('Present while not done: how to get the result.'),
  summary: z.string(),
  verification: verificationSchema,
});
type Outcome = z.infer<typeof outcomeSchema>;

const readResult = z.object({ summary: z.string(), verification: verificationSchema });

type FileInput = { filename: string; content_base64: string } | { upload_id: string };

/** Agent tools over the same use cases as the REST routes (create, read, list). */
export function verificationTools(deps: AppDeps): ToolSpec[] {
  return [
    tool({
      name: 'verify_image',
      title: 'Verify the Content Credentials of one image (free)',
      description:
        "Reads and validates the C2PA Content Credentials an image carries (JPEG, PNG, WebP, HEIF/HEIC, AVIF, TIFF, GIF) and says whether they record a trusted camera capture, declare AI generation, or were tampered with. Free: does not count toward the quota. Works without an API key (rate-limited per address; keep the anonymous_user_id it returns).",
      access: 'keyless',
      readOnly: false,
      input: z.strictObject({
        image: fileInput(uploadBody.shape.image.description ?? 'The image.'),
        anonymous_user_id: anonymousUserId.optional(),
        wait_seconds: waitSeconds,
      }),
      output: outcomeSchema,
      handler: async (call, input, progress) => {
        const outcome = await verify(deps, call, { image: input.image }, input, progress);
        return { output: outcome, summary: outcome.summary };
      },
    }),
    tool({
      name: 'verify_pair',
      title: 'Verify a photo against its camera RAW',
      description:
        'Checks that the camera RAW holds real sensor data, that the JPEG/HEIF is a faithful rendering of it, and that their metadata agrees; a verified pair gets a signed C2PA credential and a badge. Counts one verification toward the monthly quota (keyless: rate-limited per address instead). Analysis takes from seconds to minutes: progress is reported while waiting.',
      access: 'keyless',
      readOnly: false,
      input: z.strictObject({
        image: fileInput('The photo: JPEG or HEIF/HEIC rendered from the RAW.'),
        raw: fileInput(uploadBody.shape.raw.description ?? 'The camera RAW.'),
        attestation_id: uploadBody.shape.attestation_id.describe('From POST /capture/attestation (mobile capture flow), with the same API key.'),
        anonymous_user_id: anonymousUserId.optional(),
        wait_seconds: waitSeconds,
      }),
      output: outcomeSchema,
      handler: async (call, input, progress) => {
        const outcome = await verify(deps, call, { image: input.image, raw: input.raw }, input, progress);
        return { output: outcome, summary: outcome.summary };
      },
    }),
    tool({
      name: 'get_verification',
      title: 'Get a verification',
      description: 'The verification record with its evidence (per-analysis results, evidence_report, metadata) and a plain-words summary of the outcome. Keyless callers pass their anonymous_user_id.',
      access: 'keyless',
      readOnly: true,
      input: verificationIdParam.extend({ anonymous_user_id: anonymousUserId.optional() }),
      output: readResult,
      handler: async (call, input) => {
        const verification = await getVerification(deps, readerOf(call, input.anonymous_user_id), input.verification_id);
        const summary = summarize(verification);
        return { output: { summary, verification }, summary };
      },
    }),
    tool({
      name: 'list_verifications',
      title: 'List verifications',
      description: 'Your verifications, newest first by default, with the same filters as GET /v1/verifications/ (status, assurance_level, result, search, sort, paging). Keyless callers pass their anonymous_user_id.',
      access: 'keyless',
      readOnly: true,
      input: listQuery(deps.extensions).extend({ anonymous_user_id: anonymousUserId.optional() }),
      output: listEnvelope,
      handler: async (call, input) => {
        const { anonymous_user_id: anonymous, ...query } = input;
        const page = await listVerifications(deps, readerOf(call, anonymous), query);
        const lines = page.items.map((v) => `- ${v.id} "${v.name}" ${v.verification_mode} ${v.status}${v.assurance_level ? ` ${v.assurance_level}` : ''}`);
        return { output: page, summary: [`${page.items.length} of ${page.total} verifications (offset ${page.offset}).`, ...lines].join('\n') };
      },
    }),
  ];
}

async function verify(
  deps: AppDeps,
  call: Call,
  files: { image: FileInput; raw?: FileInput },
  options: { anonymous_user_id?: string; attestation_id?: string; wait_seconds: number },
  progress: ToolProgress,
): Promise<Outcome> {
  const releases: ((verificationId: string) => Promise<void>)[] = [];
  const created = await createVerification(deps, call, {
    ...(call.principal ? {} : { anonymousUserId: options.anonymous_user_id }),
    receive: async () => {
      const staged = new Map<string, UploadedFile>();
      try {
        for (const [field, given] of Object.entries(files)) {
          if (!given) continue;
          const { file, release } = await stageFile(deps, call, field, given);
          staged.set(field, file);
          if (release) releases.push(release);
        }
      } catch (error) {
        await Promise.all([...staged.values()].map((f) => f.staged.discard()));
        throw error;
      }
      const fields: Record<string, string> = options.attestation_id === undefined ? {} : { attestation_id: options.attestation_id };
      return { files: staged, fields };
    },
  });
  // The verification holds its own copies now: each upload id is used once.
  await Promise.all(releases.map((release) => release(created.id)));
  const reader = call.principal ?? anonymousPrincipal(created.anonymous_user_id!);
  const view = await awaitOutcome(deps, reader, created.id, options.wait_seconds, progress);
  const done = view.status === 'completed' || view.status === 'failed';
  return {
    verification_id: created.id,
    status: view.status,
    done,
    ...(created.anonymous_user_id ? { anonymous_user_id: created.anonymous_user_id } : {}),
    ...(created.security_score === undefined ? {} : { security_score: created.security_score }),
    ...(done ? {} : { next_step: POLL_GUIDANCE }),
    summary: done ? summarize(view) : `${summarize(view)} ${POLL_GUIDANCE}`,
    verification: view,
  };
}

/** Stages one file of a tool call as the REST door would a multipart part (same checks follow). */
async function stageFile(deps: AppDeps, call: Call, field: string, given: FileInput): Promise<{ file: UploadedFile; release?: (verificationId: string) => Promise<void> }> {
  if ('upload_id' in given) return openUpload(deps, call, given.upload_id, field);
  const bytes = Buffer.from(given.content_base64, 'base64');
  const limit = Math.min(deps.config.MCP_INLINE_MAX_BYTES, deps.config.MAX_UPLOAD_BYTES);
  if (bytes.length > limit) {
    throw new AppError('PAYLOAD_TOO_LARGE', `The inline ${field} is larger than the limit of ${limit} bytes for inline files.`, {
      suggestion: 'Call create_upload, PUT the file to its upload_url, and pass { "upload_id": … } instead.',
      details: { limit_bytes: limit },
    });
  }
  const staged = await deps.blobs.stage(Readable.from([bytes]), { maxBytes: limit });
  return { file: { field, filename: cleanFileName(given.filename), staged } };
}

/**
 * Waits (at most `waitSeconds`) for the verification to finish, reporting progress as it
 * goes: the seconds waited (growing, as MCP requires) with the current status in words.
 */
async function awaitOutcome(deps: AppDeps, reader: Principal, id: string, waitSeconds: number, progress: ToolProgress): Promise<VerificationView> {
  const started = Date.now();
  let view = await getVerification(deps, reader, id);
  let reported = -1;
  while (view.status !== 'completed' && view.status !== 'failed' && !progress.signal.aborted) {
    const waited = Math.floor((Date.now() - started) / 1000);
    if (waited >= waitSeconds) break;
    if (waited > reported) {
      reported = waited;
      await progress.report(waited, waitSeconds, `Verification ${id}: ${view.status.replace('_', ' ')} (${waited} s of ${waitSeconds} s).`);
    }
    await sleep(TICK_MS, undefined, { signal: progress.signal }).catch(() => undefined);
    view = await getVerification(deps, reader, id);
  }
  return view;
}
