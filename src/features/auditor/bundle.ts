import { AUDIT_BUNDLE_FORMAT, bundleSummary, type Bundle, type BundleEvent } from '../../core/audit/audit-verify.js';
import type { AppDeps } from '../../core/module/deps.js';
import { fieldDigest } from '../../core/audit/hash-chain.js';
import type { Principal } from '../../core/principal.js';
import { anchoredIn, type AnchoredIn } from '../anchors/index.js';
import { auditEventsOfStream, type AuditEvent } from '../audit/index.js';
import { sealedStreamsOf } from '../anchors/events.js';
import { openSharedVerification } from '../sharing/index.js';
import { getVerification } from '../verifications/index.js';
import { bundleReplays } from './replays.js';

/**
 * The audit bundle of a verification (docs/audit.md, "Checking a verification offline"; format 2,
 * issue 35): all an auditor needs to check its history with src/core/audit/audit-verify.ts and nothing
 * but the service's published certificate. Streams (sealedStreamsOf): the verification's own
 * (what was uploaded, analysed, graded, signed, discarded, by whom, where) and its PSD export's
 * (the same files processed again, with its region), when it has one, each event with only the
 * fields its hashes cover. `verification` is what those events replay to through the read
 * models' own folds (bundleSummary with bundleReplays): the verifier replays them again and
 * compares, so the summary can say nothing its hashed events do not. Shares, views, tags and
 * comments are about the verification, not evidence of its processing, and carry other people's
 * addresses: they stay in the owner's audit history.
 */
export interface AuditBundle {
  format: typeof AUDIT_BUNDLE_FORMAT;
  verification: Bundle['verification'];
  streams: Record<string, BundleEvent[]>;
  anchors: AnchoredIn[];
}

/** An event with only the fields its hashes cover (the global position and recording time are the store's, in no hash). */
const hashedOnly = ({ position: _position, recorded_at: _recorded, ...event }: AuditEvent): BundleEvent => event;

async function streamsOf(deps: AppDeps, verificationId: string): Promise<Record<string, AuditEvent[]>> {
  const streams: Record<string, AuditEvent[]> = {};
  for (const stream of sealedStreamsOf(verificationId)) {
    const events = await auditEventsOfStream(deps, stream);
    if (events.length) streams[stream] = events;
  }
  return streams;
}

function bundleOf(verificationId: string, streams: Record<string, AuditEvent[]>, anchors: AnchoredIn[], shown?: (summary: Record<string, unknown>) => Record<string, unknown>): AuditBundle {
  const hashed = Object.fromEntries(Object.entries(streams).map(([stream, events]) => [stream, events.map(hashedOnly)]));
  const summary = bundleSummary(verificationId, hashed, bundleReplays);
  return { format: AUDIT_BUNDLE_FORMAT, verification: (shown ? shown(summary) : summary) as Bundle['verification'], streams: hashed, anchors };
}

/** The owner's bundle. Another account's verification is VERIFICATION_NOT_FOUND, as on every verification route (getVerification's read rule). */
export async function ownerAuditBundle(deps: AppDeps, principal: Principal, verificationId: string): Promise<AuditBundle> {
  await getVerification(deps, principal, verificationId);
  const [streams, anchors] = await Promise.all([streamsOf(deps, verificationId), anchoredIn(deps, verificationId)]);
  return bundleOf(verificationId, streams, anchors);
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

/** What a share link's reader sees of the summary: the report's facts, none of the hidden fields. */
const SHARED_FIELDS = ['id', 'name', 'short_code', 'status', 'verification_mode', 'assurance_level', 'verdict', 'verdict_reason', 'image_photo_hash', 'raw_photo_hash', 'created_at', 'updated_at'];
const sharedSummary = (summary: Record<string, unknown>) => Object.fromEntries(SHARED_FIELDS.filter((f) => f in summary).map((f) => [f, summary[f]]));

/** The bundle through a share link: the report's access check (404 NOT_SHARED / 403), no view counted; personal fields as digests. */
export async function sharedAuditBundle(deps: AppDeps, request: { token: string; viewer: Principal | null; inviteProof?: string }): Promise<AuditBundle> {
  const { row } = await openSharedVerification(deps, request);
  const [streams, anchors] = await Promise.all([streamsOf(deps, row.id), anchoredIn(deps, row.id)]);
  const shown = Object.fromEntries(Object.entries(streams).map(([stream, events]) => [stream, events.map(hiddenFromShare)]));
  return bundleOf(row.id, shown, anchors, sharedSummary);
}
