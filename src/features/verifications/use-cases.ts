import crypto from 'node:crypto';
import type { Knex } from 'knex';
import type { ParsedUpload, UploadedFile } from '../../core/blob-store.js';
import { commandContext, execute } from '../../core/es/commands.js';
import type { CommandContext } from '../../core/es/decider.js';
import type { AppDeps } from '../../core/module/deps.js';
import { extensionsOf } from '../../core/module/extensions.js';
import { runPrepared } from '../../core/es/prepared.js';
import { AppError, UnprocessableError, ValidationError } from '../../core/errors.js';
import { assuranceLevels, type AssuranceLevel } from '../../analysis/types.js';
import { callerOf, type Call, type Principal } from '../../core/principal.js';
import { invalidRequest } from '../../core/http/validation.js';
import type { ImageFormat } from '../../provenance/format.js';
import { redeemAttestation, validateAttestationForUpload, type CaptureFacts } from '../attestations/index.js';
import { meterVerification, notBilled, releaseMetering, type Billing } from '../usage/index.js';
import { anonymousAccountId, anonymousPrincipal, isAnonymousUserId, newAnonymousUserId } from './anonymous.js';
import { claimWindowOpen, verificationDecider, verificationStream } from './decider.js';
import { verificationStatuses, type StoredFile } from './events.js';
import { claimExpired, verificationNotFound } from './errors.js';
import { checkImage, checkRaw } from './file-checks.js';
import { findVerification, findVerificationWithResults, imageOf, parseReadRows, readColumns, readRowsJson, renditionsOf, selectReadRows, verificationCount, verificationsTable, type ReadRow, type RenditionRef, type VerificationRow } from '../../../projections/verifications/index.js';
import { missingRendition } from './rendition-advice.js';
import { toVerificationView, type VerificationView } from './view.js';
import { VERIFICATION_WORKFLOW_TYPE } from '../../../workflows/verifications/workflow.js';
import { CLAIM_WINDOW_WORKFLOW_TYPE } from '../../../workflows/verifications/claim-window-workflow.js';
import { claimWindowClosesAt } from './retention.js';

const SORT_FIELDS = ['created_at', 'updated_at', 'status'] as const;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const SHA256_HEX = /^[0-9a-f]{64}$/;
const SHORT_CODE_ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
const URL_TTL_SECONDS = 3600;
/** The name of the search's matches in a list statement (a CTE). */
const SEARCH_MATCHES = 'search_matches';

/** The multipart parts a create call accepts (the REST door streams them; MCP passes them in). */
export const UPLOAD_PARTS = { fileFields: ['image', 'raw'], textFields: ['attestation_id'] } as const;

type CaptureRecord = CaptureFacts & { attestation_id: string };

function shortCode(): string {
  const bytes = crypto.randomBytes(6);
  return `L-${[...bytes].map((b) => SHORT_CODE_ALPHABET[b % 32]).join('')}`;
}

/** A verification's stream before its first event: Queue is decided on it without reading the stream. */
const newStream = { state: verificationDecider.initialState(), revision: 'no_stream' } as const;

/** The caller's verification; another account's is indistinguishable from a missing one. */
async function owned(deps: AppDeps, principal: Principal, id: string): Promise<VerificationRow> {
  const row = await findVerification(deps.knex, id);
  if (!row || row.account_id !== principal.accountId) throw verificationNotFound();
  return row;
}

const signedUrl = (deps: AppDeps, target: RenditionRef) => deps.urlSigner.sign(target.blob_key, { now: deps.now(), ttlSeconds: URL_TTL_SECONDS, contentType: target.content_type });

/** Read rows to views, other features' fields (tags, comment_count) included: they came as columns of the same query. */
function views(deps: AppDeps, rows: ReadRow[]): VerificationView[] {
  return rows.map((row) => {
    const thumb = renditionsOf(row).thumbnail;
    return { ...toVerificationView(row, row.results, thumb ? signedUrl(deps, thumb) : ''), ...row.extra };
  });
}

export interface CreateInput {
  /** A keyless caller's anonymous_user_id, if it sent one (a new one is issued otherwise). */
  anonymousUserId?: string;
  /** Receives the files; called once the caller is admitted, so a refused caller uploads nothing. */
  receive: () => Promise<ParsedUpload>;
  /** The new verification's id when the caller recorded it first (a submission counted on its request); a new one otherwise. */
  id?: string;
}

export interface Created {
  id: string;
  security_score?: number;
  anonymous_user_id?: string;
}

/**
 * Creates a verification: admits the caller (keyless callers are rate-limited and verify as an
 * anonymous user), checks the files by content, validates an attestation, meters a pair,
 * commits the files, records the queueing and starts the workflow. Whatever fails undoes what
 * was done before it: staged files are discarded, committed ones deleted, metering released.
 */
export async function createVerification(deps: AppDeps, call: Call, input: CreateInput): Promise<Created> {
  let anonymousUserId: string | undefined;
  if (!call.principal) {
    await deps.anonymousLimiter.take(call.clientAddress, 'anonymous uploads from this address');
    anonymousUserId = input.anonymousUserId?.trim() || newAnonymousUserId();
    call = { ...call, principal: anonymousPrincipal(anonymousUserId) };
  }
  const principal = callerOf(call);
  const upload = await input.receive();
  const staged = [...upload.files.values()];
  try {
    const imageFile = upload.files.get('image');
    if (!imageFile) throw invalidRequest([{ loc: ['body', 'image'], msg: 'Field required.', type: 'missing' }]);
    const rawFile = upload.files.get('raw');
    const image = await checkImage(imageFile, Boolean(rawFile));
    const rawFormat = rawFile ? checkRaw(rawFile) : null;
    const attestationId = upload.fields.attestation_id;
    const attested = { accountId: principal.accountId, imageSha256: imageFile.staged.sha256, rawSha256: rawFile?.staged.sha256 ?? null };
    // Checked before anything is stored or metered; consumed only once the rest has passed.
    if (attestationId !== undefined) await validateAttestationForUpload(deps, { attestationId, ...attested });

    const id = input.id ?? crypto.randomUUID();
    const context = commandContext(deps, call);
    const billing = rawFile ? await meterVerification(deps, principal.accountId, id, context) : notBilled;
    let capture: CaptureRecord | null;
    try {
      capture = await storeAndQueue(deps, call, { id, context, billing, attestationId, attested, imageFile, image, rawFile, rawFormat });
    } catch (error) {
      if (billing.counted) await releaseMetering(deps, principal.accountId, id, context);
      throw error;
    }
    // Queued is durable already: if the start cannot be recorded, the workflow sweep starts it.
    await deps.workflows.start(VERIFICATION_WORKFLOW_TYPE, id, {}).catch((error) => deps.log.warn({ err: error, verification: id }, 'workflow start deferred to the sweep'));
    // An anonymous record's claim window is a durable timer; if its start is lost, the claim window sweep starts it when due.
    if (anonymousUserId) {
      await deps.workflows
        .start(CLAIM_WINDOW_WORKFLOW_TYPE, id, { closes_at: claimWindowClosesAt(context.now) })
        .catch((error) => deps.log.warn({ err: error, verification: id }, 'claim window start deferred to the sweep'));
    }
    return { id, ...(capture ? { security_score: capture.security_score } : {}), ...(anonymousUserId ? { anonymous_user_id: anonymousUserId } : {}) };
  } catch (error) {
    await Promise.all(staged.map((f) => f.staged.discard()));
    throw error;
  }
}

/** Redeems the attestation, commits the staged files and queues; removes what it committed if it fails. */
async function storeAndQueue(
  deps: AppDeps,
  call: Call,
  input: {
    id: string;
    context: CommandContext;
    billing: Billing;
    attestationId: string | undefined;
    attested: { accountId: string; imageSha256: string; rawSha256: string | null };
    imageFile: UploadedFile;
    image: { format: ImageFormat; contentType: string };
    rawFile: UploadedFile | undefined;
    rawFormat: string | null;
  },
): Promise<CaptureRecord | null> {
  const { id, context, attestationId, attested } = input;
  const principal = callerOf(call);
  const committed: string[] = [];
  const commit = async (file: UploadedFile, name: string, format: string, contentType: string): Promise<StoredFile> => {
    const stored = await file.staged.commit(`verifications/${id}/${name}.${format.toLowerCase()}`);
    committed.push(stored.key);
    return { blob_key: stored.key, filename: file.filename.slice(0, 255), format, content_type: contentType, size: stored.size, sha256: stored.sha256, sha512: stored.sha512 };
  };
  try {
    const capture = attestationId === undefined ? null : { attestation_id: attestationId, ...(await redeemAttestation(deps, call, { attestationId, verificationId: id, ...attested }, context)) };
    const storedImage = await commit(input.imageFile, 'image', input.image.format, input.image.contentType);
    const storedRaw = input.rawFile && input.rawFormat ? await commit(input.rawFile, 'raw', input.rawFormat, 'application/octet-stream') : null;
    await execute(deps, call, verificationStream(id), verificationDecider, {
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
    }, context, newStream); // a fresh random id: nothing to read first
    return capture;
  } catch (error) {
    await Promise.all(committed.map((key) => deps.blobs.delete(key)));
    throw error;
  }
}

export interface ListQuery {
  offset: number;
  size: number;
  sort_by: string;
  sort_order: string;
  search?: string;
  status?: string;
  /** Comma-separated assurance levels (routes.ts describes it). */
  assurance_level?: string;
  result?: 'true' | 'false';
  /** Parameters other features' extensions declare and read (tags, tag_match: core/module/extensions.ts). */
  [extensionParameter: string]: unknown;
}

export interface VerificationPage {
  items: VerificationView[];
  total: number;
  offset: number;
  size: number;
  total_pages: number;
}

export async function listVerifications(deps: AppDeps, principal: Principal, query: ListQuery): Promise<VerificationPage> {
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
  const levels = levelFilter(query.assurance_level);
  const base = verificationsTable(deps.knex).where({ account_id: principal.accountId });
  if (statuses.length) base.whereIn('status', statuses);
  // The level the grading recorded, as the read model stores it (projections/verifications/replay.ts): never recomputed here.
  if (levels.length) base.whereIn('assurance_level', levels);
  if (query.result) base.where({ result: query.result === 'true' });
  // Filters other features own (tags, tag_match): each admits a subquery of ids.
  const extensions = extensionsOf(deps.extensions, 'verification');
  const list = { knex: deps.knex, accountId: principal.accountId, query: query as unknown as Record<string, unknown> };
  let narrowedElsewhere = false;
  for (const extension of extensions) {
    const admitted = extension.filter?.(list);
    if (admitted) base.whereIn('id', admitted);
    narrowedElsewhere ||= Boolean(admitted);
  }
  // The search's matches, computed once for the total and the page (see below).
  let matches: Knex.QueryBuilder | undefined;
  if (query.search) {
    const term = query.search.trim();
    const like = `%${term.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    const hash = term.toLowerCase().replace(/^sha256:/, '');
    // Each branch can use its index (trigram on the name, the hashes, the primary key); a term
    // that cannot be an id or a hash does not compare with them at all (same matches).
    const own = verificationsTable(deps.knex)
      .select('id')
      .where({ account_id: principal.accountId })
      .where((q) => {
        q.whereILike('name', like);
        if (UUID.test(term)) q.orWhere('id', term.toLowerCase());
        if (SHA256_HEX.test(hash)) q.orWhereRaw("image->>'sha256' = ?", [hash]).orWhereRaw("raw->>'sha256' = ?", [hash]);
      });
    // Matches in other features' data (tag names) join as a union of id sets: an OR with their
    // subqueries would make the planner scan every row of the account instead of its indexes.
    const elsewhere = extensions.flatMap((extension) => (extension.search ? [extension.search.ids({ ...list, term })] : []));
    matches = elsewhere.length ? own.union(elsewhere) : own;
    base.whereIn('id', deps.knex(SEARCH_MATCHES).select('id'));
  }
  const filtered = statuses.length > 0 || levels.length > 0 || Boolean(query.result) || Boolean(query.search) || narrowedElsewhere;
  const columns = readColumns(deps);
  const order: { column: string; order: 'asc' | 'desc' }[] = [{ column: query.sort_by, order: query.sort_order as 'asc' | 'desc' }, { column: 'id', order: 'asc' }];
  const page = readRowsJson(deps.knex, selectReadRows(deps.knex, base.clone().orderBy(order).offset(query.offset).limit(query.size), columns), order);
  // One statement: the total and the page's rows as one JSON value beside it (D-071).
  let statement: Knex.QueryBuilder;
  if (filtered) {
    // The search's matches are a materialized CTE: the trigram scan of the names, most of a
    // search's time, runs once for the total and the page instead of once per query (D-057).
    statement = deps.knex.select(deps.knex.raw('(?) as total', [base.clone().count('*')]), deps.knex.raw('? as page', [page]));
    if (matches) statement.withMaterialized(SEARCH_MATCHES, matches);
  } else {
    // The unfiltered total is kept by the projector.
    statement = deps.knex.select(deps.knex.raw('(?) as total', [verificationCount(deps.knex, principal.accountId)]), deps.knex.raw('? as page', [page]));
  }
  // Prepared when the statement takes few shapes (sort field and order, an offset or none, and
  // for a search alone which of its three kinds of term): the unfiltered list and a search with
  // no other filter. A search's custom plan cost more to make than the generic one it gets
  // prepared (D-073); other filters' lists vary too much in text to keep each prepared.
  const fewShapes = !statuses.length && !levels.length && !query.result && !narrowedElsewhere;
  const [found] = fewShapes ? await runPrepared(deps.knex, statement) : ((await statement) as Record<string, unknown>[]);
  const total = Number(found?.total ?? 0);
  const rows = parseReadRows(found?.page ?? '[]', columns);
  const items = views(deps, rows);
  return { items, total, offset: query.offset, size: items.length, total_pages: Math.ceil(total / query.size) };
}

/**
 * The `assurance_level` filter's levels: a comma-separated subset of the grading's levels. Any
 * other value is refused (422 VALIDATION_ERROR in the envelope, naming the valid values) before a
 * query is built; the values then reach the query as bound parameters only.
 */
function levelFilter(value: string | undefined): AssuranceLevel[] {
  const levels = value?.split(',').map((s) => s.trim()).filter(Boolean) ?? [];
  const invalid = levels.filter((level) => !(assuranceLevels as readonly string[]).includes(level));
  if (invalid.length) {
    throw new UnprocessableError(`Invalid assurance_level filter: ${invalid.map((level) => JSON.stringify(level.slice(0, 40))).join(', ')}.`, {
      suggestion: `Use a comma-separated subset of: ${assuranceLevels.join(', ')}.`,
    });
  }
  return [...new Set(levels as AssuranceLevel[])];
}

export async function getVerification(deps: AppDeps, principal: Principal, id: string): Promise<VerificationView> {
  // One query for the row, its results and other features' fields: the most frequent call (clients poll it).
  const row = await findVerificationWithResults(deps, id);
  if (!row || row.account_id !== principal.accountId) throw verificationNotFound();
  return views(deps, [row])[0]!;
}

/** Deletes a verification permanently: its events say so, its files are removed. */
export async function deleteVerification(deps: AppDeps, call: Call, id: string): Promise<void> {
  const principal = callerOf(call);
  await owned(deps, principal, id);
  const outcome = await execute(deps, call, verificationStream(id), verificationDecider, { type: 'Delete', account_id: principal.accountId, now: deps.now() });
  for (const event of outcome.events) {
    if (event.type !== 'VerificationDeleted') continue;
    await Promise.all(event.data.blob_keys.map((key) => deps.blobs.delete(key)));
  }
}

export type FileKind = 'thumbnail' | 'image' | 'badge';

/** A pre-signed URL (1 hour) to one of a verification's files. */
export async function fileUrl(deps: AppDeps, principal: Principal, id: string, kind: FileKind): Promise<string> {
  const row = await owned(deps, principal, id);
  const renditions = renditionsOf(row);
  const image = imageOf(row);
  const target =
    kind === 'thumbnail'
      ? renditions.thumbnail
      : kind === 'image'
        ? (renditions.signed_image ?? { blob_key: image.blob_key, content_type: image.content_type })
        : row.status === 'completed' && row.result === true
          ? renditions.badge
          : undefined;
  if (!target) throw missingRendition(row, kind);
  return signedUrl(deps, target);
}

/**
 * Moves an anonymous user's unclaimed verifications (30-day window) into the caller's account.
 * Idempotent; a malformed id owns nothing and gets the same answer as an unknown one.
 */
export async function claimVerifications(deps: AppDeps, call: Call, anonymousUserId: string): Promise<{ claimed: number; verification_ids: string[] }> {
  const principal = callerOf(call);
  await deps.claimLimiter.take(principal.accountId, 'claim attempts');
  if (!isAnonymousUserId(anonymousUserId)) return { claimed: 0, verification_ids: [] };
  const anonymousAccount = anonymousAccountId(anonymousUserId);
  const rows = await verificationsTable(deps.knex).where({ anonymous_origin: anonymousAccount }).select('id', 'account_id', 'created_at');
  const now = deps.now();
  const unclaimed = rows.filter((r) => r.account_id === anonymousAccount);
  const claimable = unclaimed.filter((r) => claimWindowOpen(r.created_at, now));
  if (claimable.length === 0) {
    if (rows.some((r) => r.account_id !== anonymousAccount && r.account_id !== principal.accountId) && !rows.some((r) => r.account_id === principal.accountId)) {
      throw new AppError('ALREADY_CLAIMED', 'These verifications have already been claimed by another account.', {
        suggestion: 'Ask the owner of that account; anonymous verifications can be claimed once.',
      });
    }
    if (unclaimed.length > 0) throw claimExpired();
    return { claimed: 0, verification_ids: [] };
  }
  const context = commandContext(deps, call);
  const claimed: string[] = [];
  let expired = 0;
  for (const row of claimable) {
    try {
      const outcome = await execute(deps, call, verificationStream(row.id), verificationDecider, {
        type: 'Claim',
        anonymous_account_id: anonymousAccount,
        new_owner_account_id: principal.accountId,
        now: context.now,
      }, context);
      if (outcome.events.length > 0) claimed.push(row.id);
    } catch (error) {
      // The decider refused on the stream: its window ended or was closed (the sweep won the race). The others still move.
      if (!(error instanceof AppError && error.code === 'CLAIM_EXPIRED')) throw error;
      expired++;
    }
  }
  // Every record this claim could have moved went with its window: the caller is told so, not "0 claimed".
  if (claimed.length === 0 && expired > 0) throw claimExpired();
  return { claimed: claimed.length, verification_ids: claimed };
}
