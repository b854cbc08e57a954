import crypto from 'node:crypto';
import type { Readable } from 'node:stream';
import { commandContext, execute, readModelsCaughtUp, systemContext } from '../../core/es/commands.js';
import { appendFacts, foldStream, type CommandContext } from '../../core/es/decider.js';
import type { AppDeps } from '../../core/module/deps.js';
import { AccessDeniedError, AppError, NotFoundError, ValidationError } from '../../core/errors.js';
import { callerOf, type Call, type Principal } from '../../core/principal.js';
import { findUser, findUserByEmail, normaliseEmail } from '../accounts/index.js';
import { queueMail, type OutgoingMail } from '../mail/index.js';
import { verificationStream } from '../verifications/events.js';
import { failureOf, findVerification, resultsOf, verificationNotFound, type VerificationRow } from '../verifications/index.js';
import { anchorOf } from '../anchors/index.js';
import { checkOwner, decideView, notShared, shareDecider, shareStream, shareViewsStream, type ShareCommand, type ShareState, type VerificationFacts } from './decider.js';
import { shareViewEvents, type AccessType } from './events.js';
import { accessChangedMessage, invitationMessage, sharerOf, toldOfAccessChange } from './notifications.js';
import { dailyViewCounts, findInviteByTokenHash, findInvite, findShare, findShareByTokenHash, invitesOf, viewCounted, type ShareRow } from '../../../projections/sharing/index.js';
import { sharedFileOf, toSharedReport, type SharedFileKind, type SharedReport, type ViewerAccess } from './report.js';
import { linkKey, linkToken, newNonce, shareUrl, TOKEN_PATTERN, tokenSha256, visitorHash } from './tokens.js';

/** The spec's Share resource (2.3). */
export interface ShareView {
  verification_id: string;
  access_type: AccessType;
  share_url: string;
  invited_emails: string[];
}

/** Facts the share decider needs about a verification (null: missing or deleted). */
function factsOf(row: VerificationRow | undefined): VerificationFacts {
  if (!row) return null;
  // Still owned by the pseudo-account of its keyless uploader: anonymous (a claimed one is not).
  return { account_id: row.account_id, anonymous: row.anonymous_origin !== null && row.anonymous_origin === row.account_id };
}

/** The caller's own, non-anonymous verification (404 hides other owners'; 403 for anonymous ones, decider.ts checkOwner). */
async function owned(deps: AppDeps, principal: Principal, verificationId: string): Promise<VerificationRow> {
  const row = await findVerification(deps.knex, verificationId);
  checkOwner({ account_id: principal.accountId, caller_anonymous: principal.via === 'anonymous', verification: factsOf(row) });
  return row!;
}

const key = (deps: AppDeps) => linkKey(deps.config.DATA_DIR);
const shareToken = (deps: AppDeps, verificationId: string, nonce: string) => linkToken(key(deps), 'share', verificationId, nonce);
const inviteToken = (deps: AppDeps, verificationId: string, nonce: string) => linkToken(key(deps), 'invite', verificationId, nonce);

function shareView(deps: AppDeps, verificationId: string, accessType: AccessType, nonce: string, invitedEmails: string[]): ShareView {
  return {
    verification_id: verificationId,
    access_type: accessType,
    share_url: shareUrl(deps.config.PUBLIC_BASE_URL, shareToken(deps, verificationId, nonce)),
    invited_emails: invitedEmails,
  };
}

/** The share as the stream says right after a command (not the read model, which may lag). */
async function currentShare(deps: AppDeps, verificationId: string): Promise<Extract<ShareState, { status: 'shared' }>> {
  const { state } = await foldStream(deps.store, shareStream(verificationId), shareDecider);
  // Disabled by a concurrent DELETE between the command and this read.
  if (state.status !== 'shared') throw notShared();
  return state;
}

/** The caller and the verification as every share command carries them (the decider checks the ownership). */
async function ownerOf(deps: AppDeps, call: Call, verificationId: string) {
  const principal = callerOf(call);
  const row = await findVerification(deps.knex, verificationId);
  return { principal, row, owner: { account_id: principal.accountId, caller_anonymous: principal.via === 'anonymous', verification: factsOf(row) } };
}

type Minting = Extract<ShareCommand, { token_sha256: string }>;
/** A command that mints a link (Share, Invite), less what ownerOf and the clock give it. */
type LinkCommand<C = Minting> = C extends Minting ? Omit<C, 'account_id' | 'caller_anonymous' | 'verification' | 'now'> : never;

/**
 * Runs a command that mints a link (Share, Invite): a fresh nonce, and the hash of the link's
 * token made from it. Returns the share as the stream says right after it, for the mail that follows.
 */
async function mintLink(
  deps: AppDeps,
  call: Call,
  verificationId: string,
  token: (deps: AppDeps, verificationId: string, nonce: string) => string,
  command: (nonce: string, tokenSha256: string) => LinkCommand,
) {
  const { principal, row, owner } = await ownerOf(deps, call, verificationId);
  const nonce = newNonce();
  const context = commandContext(deps, call);
  await execute(deps, call, shareStream(verificationId), shareDecider, { ...command(nonce, tokenSha256(token(deps, verificationId, nonce))), ...owner, now: context.now }, context);
  return { principal, row, context, share: await currentShare(deps, verificationId) };
}

export async function getShare(deps: AppDeps, principal: Principal, verificationId: string): Promise<ShareView> {
  await owned(deps, principal, verificationId);
  const share = await findShare(deps.knex, verificationId);
  if (!share) throw notShared();
  const invites = await invitesOf(deps.knex, verificationId);
  return shareView(deps, verificationId, share.access_type, share.nonce, invites.map((i) => i.email));
}

/**
 * Shares a verification, or sets the access type of its share (the URL is kept). Invited
 * addresses are told when the access type changes (spec 4.1). The messages are queued here (the
 * fast path); a crash before they are is recovered by the share mail sweep (workflows/sharing/workflow.ts), which
 * queues the same message ids, so each is sent once.
 */
export async function shareVerification(deps: AppDeps, call: Call, verificationId: string, accessType: AccessType): Promise<ShareView> {
  const { principal, row, share, context } = await mintLink(deps, call, verificationId, shareToken, (nonce, token_sha256) => ({ type: 'Share', access_type: accessType, nonce, token_sha256 }));
  const told = toldOfAccessChange(share);
  if (told.length > 0) {
    const sharer = await sharerOf(deps, principal.userId, principal.accountId);
    for (const [email, invitation] of told) await sendMail(deps, context, accessChangedMessage(deps, row!, share, email, invitation, sharer));
  }
  return shareView(deps, verificationId, share.accessType, share.nonce, [...share.invitations.keys()]);
}

/** Removes the share: the URL stops working and every invitation goes with it, at once. */
export async function unshareVerification(deps: AppDeps, call: Call, verificationId: string): Promise<void> {
  const { owner } = await ownerOf(deps, call, verificationId);
  await execute(deps, call, shareStream(verificationId), shareDecider, { type: 'Unshare', ...owner, now: deps.now() });
}

/**
 * Invites an address to a restricted share and mails it a personal link (share URL plus the
 * invitation's proof). Repeating it changes nothing and queues the same message, which is not
 * sent twice; a crash before the message is queued is recovered by the share mail sweep (workflows/sharing/workflow.ts).
 */
export async function inviteToShare(deps: AppDeps, call: Call, verificationId: string, email: string): Promise<{ email: string; user_exists: boolean }> {
  const address = normaliseEmail(email);
  const { principal, row, share, context } = await mintLink(deps, call, verificationId, inviteToken, (nonce, token_sha256) => ({ type: 'Invite', email: address, nonce, token_sha256 }));
  const invitation = share.invitations.get(address);
  if (invitation) await sendMail(deps, context, invitationMessage(deps, row!, share, address, invitation, await sharerOf(deps, principal.userId, principal.accountId)));
  return { email: address, user_exists: Boolean(await findUserByEmail(deps.knex, address)) };
}

/** Revokes one address: its link and its signed-in access end with this call. */
export async function revokeInvite(deps: AppDeps, call: Call, verificationId: string, email: string): Promise<void> {
  const { owner } = await ownerOf(deps, call, verificationId);
  await execute(deps, call, shareStream(verificationId), shareDecider, { type: 'RevokeInvite', ...owner, email: normaliseEmail(email), now: deps.now() });
}

/**
 * Queues through the mail port. Queueing never fails the sharing call: the share is recorded,
 * and the recovery sweep (workflows/sharing/workflow.ts) queues the same message id from it.
 */
async function sendMail(deps: AppDeps, context: CommandContext, message: OutgoingMail): Promise<void> {
  try {
    await queueMail(deps, context, message);
  } catch (error) {
    // The message names no link: it is the error, not the mail.
    deps.log.warn({ mail: message.id, error: (error as Error).message }, 'sharing notification not queued; the share mail sweep queues it');
  }
}

// ---------------------------------------------------------------------------------------------
// View analytics

const DAY_MS = 86_400_000;
/** Days shown when no range is given, and the longest range one request may ask for. */
export const DEFAULT_ANALYTICS_DAYS = 30;
export const MAX_ANALYTICS_DAYS = 366;

export interface ViewAnalytics {
  total_views: number;
  daily_views: { date: string; count: number }[];
}

const DATE_ONLY = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:?\d{2})$/;

/** A UTC day from an ISO 8601 date or date-time; INVALID_FORMAT otherwise (spec 7). */
export function parseDay(value: string | undefined, name: string): string | undefined {
  if (value === undefined || value.trim() === '') return undefined;
  const text = value.trim();
  const date = DATE_ONLY.exec(text);
  if (date) {
    const [y, m, d] = [Number(date[1]), Number(date[2]), Number(date[3])];
    const parsed = new Date(Date.UTC(y, m - 1, d));
    if (parsed.getUTCFullYear() === y && parsed.getUTCMonth() === m - 1 && parsed.getUTCDate() === d) return text;
  } else if (DATE_TIME.test(text) && !Number.isNaN(Date.parse(text))) {
    return new Date(text).toISOString().slice(0, 10);
  }
  throw new AppError('INVALID_FORMAT', `${name} is not an ISO 8601 date: ${JSON.stringify(text.slice(0, 40))}.`, {
    suggestion: `Give ${name} as YYYY-MM-DD (a UTC day) or an ISO 8601 date-time, e.g. 2026-03-01.`,
  });
}

const addDays = (day: string, days: number) => new Date(Date.parse(`${day}T00:00:00Z`) + days * DAY_MS).toISOString().slice(0, 10);

/**
 * Views of the shared report per UTC day, every day of the range listed (zero included). A view
 * is a visitor's first view of the day (D-029); the owner's own views are never recorded. The
 * range defaults to the 30 days ending today; both ends are inclusive.
 */
export async function viewAnalytics(deps: AppDeps, principal: Principal, verificationId: string, range: { start_date?: string; end_date?: string }): Promise<ViewAnalytics> {
  await owned(deps, principal, verificationId);
  const start = parseDay(range.start_date, 'start_date');
  const end = parseDay(range.end_date, 'end_date') ?? deps.now().toISOString().slice(0, 10);
  const from = start ?? addDays(end, -(DEFAULT_ANALYTICS_DAYS - 1));
  if (from > end) {
    throw new ValidationError(`start_date (${from}) is after end_date (${end}).`, { suggestion: 'Give a start_date on or before end_date (end_date defaults to today, UTC).' });
  }
  const days = Math.round((Date.parse(end) - Date.parse(from)) / DAY_MS) + 1;
  if (days > MAX_ANALYTICS_DAYS) {
    throw new ValidationError(`The range covers ${days} days; at most ${MAX_ANALYTICS_DAYS} can be asked for at once.`, { suggestion: 'Ask for a shorter range, one year at a time.' });
  }
  const counts = await dailyViewCounts(deps.knex, verificationId, from, end);
  const daily = Array.from({ length: days }, (_, i) => {
    const date = addDays(from, i);
    return { date, count: counts.get(date) ?? 0 };
  });
  return { total_views: daily.reduce((sum, d) => sum + d.count, 0), daily_views: daily };
}

// ---------------------------------------------------------------------------------------------
// The shared report (for the report page: HTML at the share URL)

export interface SharedReportRequest {
  /** The last path segment of the share URL. */
  token: string;
  /** The signed-in viewer, if any: the owner's account sees its report uncounted; an invited address's user is let in. */
  viewer: Principal | null;
  /** The `invite` parameter of an invitee's personal link (the proof of the invited address). */
  inviteProof?: string;
  /**
   * Identifies one visitor (e.g. a first-party cookie's random value): one view per visitor key
   * and UTC day is counted. null: not a view (a HEAD request), nothing is recorded.
   */
  visitorKey: string | null;
  /** Ties the recorded view to the request (its request id); a new one when absent. */
  correlationId?: string;
}

const linkNotFound = () =>
  new NotFoundError('NOT_SHARED', 'This shared report does not exist or is no longer shared.', {
    suggestion: 'Ask the person who shared it for a new link.',
  });

interface Admitted {
  share: ShareRow;
  row: VerificationRow;
  viewer: ViewerAccess;
}

/**
 * Who may open a share link: the owner's account always; anyone while the share is
 * `anyone_with_link`; for `restricted`, a holder of a current invitation's link, or a signed-in
 * user whose address is invited. A revoked invitation, a disabled share and a deleted
 * verification fail at once (the read models are caught up when their commands answer).
 */
async function admit(deps: AppDeps, request: Pick<SharedReportRequest, 'token' | 'viewer' | 'inviteProof'>): Promise<Admitted> {
  if (!TOKEN_PATTERN.test(request.token)) throw linkNotFound();
  const share = await findShareByTokenHash(deps.knex, tokenSha256(request.token));
  if (!share) throw linkNotFound();
  const row = await findVerification(deps.knex, share.verification_id);
  if (!row || row.account_id !== share.account_id) throw linkNotFound();
  if (request.viewer && request.viewer.accountId === row.account_id) return { share, row, viewer: 'owner' };
  if (share.access_type === 'anyone_with_link') return { share, row, viewer: 'link' };
  if (request.inviteProof && TOKEN_PATTERN.test(request.inviteProof)) {
    if (await findInviteByTokenHash(deps.knex, row.id, tokenSha256(request.inviteProof))) return { share, row, viewer: 'invitation' };
  }
  if (request.viewer && request.viewer.via !== 'anonymous') {
    const user = await findUser(deps.knex, request.viewer.userId);
    if (user && (await findInvite(deps.knex, row.id, normaliseEmail(user.email)))) return { share, row, viewer: 'invitation' };
  }
  throw new AccessDeniedError('This shared report is restricted to invited addresses.', {
    suggestion: 'Open the personal link from your invitation e-mail, or sign in with the invited address.',
  });
}

/** Where the verification's analysis ran, as its events recorded it. */
async function processingRegionOf(deps: AppDeps, verificationId: string): Promise<string | null> {
  const events = await deps.store.readStream(verificationStream(verificationId));
  const graded = [...events].reverse().find((e) => e.type === 'VerificationGraded') ?? events.at(-1);
  return graded?.metadata.processing_region ?? null;
}

/**
 * Opens a shared report: checks access (see admit), records the view unless the viewer is the
 * owner's account, and returns the verification as the public may see it. A view that cannot be
 * recorded does not deny the report.
 */
export async function openSharedReport(deps: AppDeps, request: SharedReportRequest): Promise<SharedReport> {
  const { share, row, viewer } = await admit(deps, request);
  if (viewer !== 'owner' && request.visitorKey !== null) await recordView(deps, row, viewer, request.visitorKey, request);
  return reportOf(deps, row, share.access_type, viewer);
}

/** A verification's report from the facts every report is made of (the shared one and the owner's alike). */
async function reportOf(deps: AppDeps, row: VerificationRow, accessType: AccessType | null, viewer: ViewerAccess): Promise<SharedReport> {
  const [results, processingRegion, anchor, failure] = await Promise.all([resultsOf(deps.knex, [row.id]), processingRegionOf(deps, row.id), anchorOf(deps, row.id), failureOf(deps.store, row)]);
  return toSharedReport(row, results, { processingRegion, accessType, viewer, anchor, failure });
}

/** The caller's account's own verification; any other (another account's, a keyless one) is VERIFICATION_NOT_FOUND, as on GET /v1/verifications/{id}. */
async function ownRow(deps: AppDeps, principal: Principal, verificationId: string): Promise<VerificationRow> {
  const row = await findVerification(deps.knex, verificationId);
  if (!row || row.account_id !== principal.accountId) throw verificationNotFound();
  return row;
}

/**
 * The report of the caller's own verification, shared or not (the web app's verification page,
 * issue 27): the very report a share link shows, seen by its owner (no view counted).
 * `access_type` is the share's, null when it is not shared.
 */
export async function openOwnReport(deps: AppDeps, principal: Principal, verificationId: string): Promise<SharedReport> {
  const row = await ownRow(deps, principal, verificationId);
  const share = await findShare(deps.knex, row.id);
  return reportOf(deps, row, share?.access_type ?? null, 'owner');
}

/** One of the owner's report's files (SharedReport.files), with the rules a share link's files follow. */
export async function openOwnFile(deps: AppDeps, principal: Principal, verificationId: string, kind: SharedFileKind): Promise<{ stream: Readable; contentType: string }> {
  return fileOf(deps, await ownRow(deps, principal, verificationId), kind);
}

async function fileOf(deps: AppDeps, row: VerificationRow, kind: SharedFileKind): Promise<{ stream: Readable; contentType: string }> {
  const target = sharedFileOf(row, kind);
  if (!target || !(await deps.blobs.exists(target.blob_key))) {
    throw new NotFoundError('NOT_FOUND', `This report has no ${kind} file.`, { suggestion: 'SharedReport.files says which files exist.' });
  }
  return { stream: deps.blobs.stream(target.blob_key), contentType: target.content_type };
}

/**
 * What a document made of a report (the signed PDF report) needs: the very report its page shows,
 * the bytes of the report's files, and the share link. Read through the report's own access
 * checks (the owner's, or a share link's); opening it counts no view.
 */
export interface ReportSource {
  verificationId: string;
  accountId: string;
  report: SharedReport;
  /** The share URL; null when the verification is not shared. Through a link: that link. */
  shareUrl: string | null;
  /** The bytes of one of the report's files (SharedReport.files); null when it has none. */
  file(kind: SharedFileKind): Promise<Buffer | null>;
}

function sourceOf(deps: AppDeps, row: VerificationRow, report: SharedReport, url: string | null): ReportSource {
  return {
    verificationId: row.id,
    accountId: row.account_id,
    report,
    shareUrl: url,
    file: async (kind) => {
      const target = sharedFileOf(row, kind);
      return target && (await deps.blobs.exists(target.blob_key)) ? deps.blobs.read(target.blob_key) : null;
    },
  };
}

/** The owner's report as a source (openOwnReport's access rule: another account's verification is VERIFICATION_NOT_FOUND). */
export async function openOwnReportSource(deps: AppDeps, principal: Principal, verificationId: string): Promise<ReportSource> {
  const row = await ownRow(deps, principal, verificationId);
  const share = await findShare(deps.knex, row.id);
  const report = await reportOf(deps, row, share?.access_type ?? null, 'owner');
  return sourceOf(deps, row, report, share ? shareView(deps, row.id, share.access_type, share.nonce, []).share_url : null);
}

/** A shared report as a source, behind the share link's access check (admit); no view counted. */
export async function openSharedReportSource(deps: AppDeps, request: Pick<SharedReportRequest, 'token' | 'viewer' | 'inviteProof'>): Promise<ReportSource> {
  const { share, row, viewer } = await admit(deps, request);
  const report = await reportOf(deps, row, share.access_type, viewer);
  return sourceOf(deps, row, report, shareUrl(deps.config.PUBLIC_BASE_URL, request.token));
}

/** One of a shared report's files (see SharedReport.files), behind the same access check; not counted as a view. */
export async function openSharedFile(
  deps: AppDeps,
  request: Pick<SharedReportRequest, 'token' | 'viewer' | 'inviteProof'> & { kind: SharedFileKind },
): Promise<{ stream: Readable; contentType: string }> {
  const { row } = await admit(deps, request);
  return fileOf(deps, row, request.kind);
}

/**
 * Records a view: a visitor's first of the UTC day appends ShareViewed (and waits, like a
 * command, for the read model to include it); later ones append nothing. Views are facts
 * without invariants, so they are appended without reading the stream (expected revision
 * 'any'); two racing first views both append and the read model counts one.
 */
async function recordView(deps: AppDeps, row: VerificationRow, access: Exclude<ViewerAccess, 'owner'>, visitorKey: string, request: SharedReportRequest): Promise<void> {
  try {
    const now = deps.now();
    const visitor = visitorHash(key(deps), visitorKey);
    if (await viewCounted(deps.knex, row.id, now.toISOString().slice(0, 10), visitor)) return;
    const context = systemContext(deps, { actor: { type: 'anonymous', id: 'anonymous' }, correlationId: request.correlationId ?? crypto.randomUUID(), accountId: row.account_id });
    const events = decideView({ type: 'RecordView', visitor, access: access === 'link' ? 'link' : 'invitation', now });
    const { position } = await appendFacts(deps.store, shareViewsStream(row.id), shareViewEvents, events, context);
    // Read-your-writes: the visitor's next view of the day finds this one counted (and appends nothing).
    await readModelsCaughtUp(deps, position);
  } catch (error) {
    deps.log.warn({ verification: row.id, error: (error as Error).message }, 'shared report view not recorded');
  }
}


/**
 * The verification behind a share link, for pages another feature serves at the link (the
 * auditor's history, /shared/<token>/history): the report's access check, no view counted.
 */
export async function openSharedVerification(
  deps: AppDeps,
  request: Pick<SharedReportRequest, 'token' | 'viewer' | 'inviteProof'>,
): Promise<{ row: VerificationRow; viewer: ViewerAccess }> {
  const { row, viewer } = await admit(deps, request);
  return { row, viewer };
}
