import { AUDIT_BUNDLE_FORMAT } from '../../core/audit-verify.js';
import type { AppDeps } from '../../core/deps.js';
import { fieldDigest } from '../../core/hash-chain.js';
import type { Principal } from '../../core/principal.js';
import { anchoredIn, type AnchoredIn } from '../anchors/index.js';
import { auditEventsOfStream, type AuditEvent } from '../audit/index.js';
import { psdExportStream } from '../psd-export/events.js';
import { openSharedVerification } from '../sharing/index.js';
import { getVerification, verificationFields, type VerificationRow } from '../verifications/index.js';
import { verificationStream } from '../verifications/events.js';

/**
 * The audit bundle of a verification (docs/audit.md, "Checking a verification offline"): all an
 * auditor needs to check its history with src/core/audit-verify.ts and nothing but the service's
 * published certificate. Streams (docs/decisions.md): the verification's own (what was uploaded,
 * analysed, graded, signed, discarded, by whom, where; its last event is what the anchor seals)
 * and its PSD export's (the same files processed again, with its region), when it has one.
 * Shares, views, tags and comments are about the verification, not evidence of its processing,
 * and carry other people's addresses: they stay in the owner's audit history.
 */
export interface AuditBundle {
  format: typeof AUDIT_BUNDLE_FORMAT;
  /** The owner's Verification (spec 2.1); through a share link, the few fields the checks and the page read. */
  verification: Record<string, unknown> & { id: string; image_photo_hash: string; raw_photo_hash: string };
  streams: Record<string, AuditEvent[]>;
  anchors: AnchoredIn[];
}

const auditedStreams = (verificationId: string) => [verificationStream(verificationId), psdExportStream(verificationId)];

async function streamsOf(deps: AppDeps, verificationId: string): Promise<Record<string, AuditEvent[]>> {
  const streams: Record<string, AuditEvent[]> = {};
  for (const stream of auditedStreams(verificationId)) {
    const events = await auditEventsOfStream(deps, stream);
    if (events.length) streams[stream] = events;
  }
  return streams;
}

/** The owner's bundle: their whole Verification. Another account's verification is VERIFICATION_NOT_FOUND, as on every verification route. */
export async function ownerAuditBundle(deps: AppDeps, principal: Principal, verificationId: string): Promise<AuditBundle> {
  const verification = await getVerification(deps, principal, verificationId);
  const [streams, anchors] = await Promise.all([streamsOf(deps, verificationId), anchoredIn(deps, verificationId)]);
  return { format: AUDIT_BUNDLE_FORMAT, verification, streams, anchors };
}

/**
 * Fields a share link's reader gets only as their digests (the checks still pass: a field's
 * digest is what the chain commits to): the owner's account, the capture's device ids and
 * location, billing. Ids the hashes cover as a whole (metadata: account, actor) stay visible;
 * they are opaque, and no name or address is in any audited event.
 */
const HIDDEN_FROM_SHARE = ['account_id', 'capture', 'billing', 'previous_owner_account_id', 'new_owner_account_id'];

function hiddenFromShare(event: AuditEvent): AuditEvent {
  const hidden = HIDDEN_FROM_SHARE.filter((field) => event.data[field] !== undefined && !(field in (event.redacted_fields ?? {})));
  if (!hidden.length) return event;
  const data = { ...event.data };
  const redacted = { ...event.redacted_fields };
  for (const field of hidden) {
    redacted[field] = fieldDigest(data[field]);
    data[field] = '[hidden from shared views]';
  }
  return { ...event, data, redacted_fields: redacted };
}

function sharedVerification(row: VerificationRow): AuditBundle['verification'] {
  const fields = verificationFields(row);
  return {
    id: row.id,
    name: fields.name,
    short_code: fields.short_code,
    status: fields.status,
    verification_mode: fields.verification_mode,
    image_photo_hash: fields.image_photo_hash,
    raw_photo_hash: fields.raw_photo_hash,
    created_at: fields.created_at,
    updated_at: fields.updated_at,
  };
}

/** The bundle through a share link: the report's access check (404 NOT_SHARED / 403), no view counted; personal fields as digests. */
export async function sharedAuditBundle(deps: AppDeps, request: { token: string; viewer: Principal | null; inviteProof?: string }): Promise<AuditBundle> {
  const { row } = await openSharedVerification(deps, request);
  const [streams, anchors] = await Promise.all([streamsOf(deps, row.id), anchoredIn(deps, row.id)]);
  const shown = Object.fromEntries(Object.entries(streams).map(([stream, events]) => [stream, events.map(hiddenFromShare)]));
  return { format: AUDIT_BUNDLE_FORMAT, verification: sharedVerification(row), streams: shown, anchors };
}
