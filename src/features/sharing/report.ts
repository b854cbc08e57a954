import { isoDate } from '../../core/http/schemas.js';
import { captureOf, imageOf, renditionsOf, resultFields, verificationFields, type FailureExplanation, type ResultRow, type VerificationRow } from '../verifications/index.js';
import type { AnchorSummary } from '../anchors/index.js';
import type { AccessType } from './events.js';

/** How a viewer came to see a shared report. */
export type ViewerAccess = 'owner' | 'link' | 'invitation';

/**
 * A verification as a shared report shows it (spec 2.3: "shows results but hides account
 * information and internal IDs"): no verification, account, user or result ids, no e-mail
 * addresses, no blob keys or URLs that embed them. Files are named by kind; the report page
 * serves them through openSharedFile, behind the same access check.
 */
export interface SharedReport {
  name: string;
  short_code: string;
  status: VerificationRow['status'];
  failure_reason: string | null;
  /** A failed verification's failure in plain words, from its VerificationFailed (verifications' explainFailure); null otherwise. */
  failure: FailureExplanation | null;
  verification_mode: 'raw_pair' | 'image_only';
  result: boolean | null;
  result_confidence: number;
  assurance_level: VerificationRow['assurance_level'];
  assurance_reason: string | null;
  verdict: VerificationRow['verdict'];
  verdict_reason: VerificationRow['verdict_reason'];
  capture_verified: boolean | null;
  evidence_report: Record<string, unknown> | null;
  raw_metadata: Record<string, unknown>;
  image_metadata: Record<string, unknown>;
  rendition_info: Record<string, unknown>;
  rendition_corrected_info: Record<string, unknown>;
  /** One per analysis, oldest first. */
  results: { analysis: string; result: boolean | null; confidence_score: number; details: Record<string, unknown>; recorded_at: string }[];
  image_photo_hash: string;
  raw_photo_hash: string;
  /** Attestation facts, when the photo came with a capture attestation (device ids and location left out). */
  capture: { attestation_validated: boolean; security_score: number | null; integrity_score: number | null } | null;
  /** The verification date (server side, UTC). */
  created_at: string;
  updated_at: string;
  /** Where the analysis ran (from the events that recorded it). */
  processing_region: string | null;
  /** The anchor batch the record is sealed in (docs/audit.md "Anchors"); null until it is anchored. */
  anchor: AnchorSummary | null;
  /** Which files openSharedFile can serve for this report. */
  files: Record<SharedFileKind, boolean>;
  /** The share's access type; null in the owner's report of a verification that is not shared. */
  access_type: AccessType | null;
  /** 'owner' (not counted as a view), 'link' or 'invitation'. */
  viewer: ViewerAccess;
}

export const sharedFileKinds = ['image', 'thumbnail', 'badge', 'heatmap', 'raw_reference'] as const;
export type SharedFileKind = (typeof sharedFileKinds)[number];

/** The URL a page links one of the report's files by. */
export type SharedFileUrl = (kind: SharedFileKind) => string;

/** The blob behind a file kind, with the same rules as the owner's endpoints (badge: completed and authentic only). */
export function sharedFileOf(row: VerificationRow, kind: SharedFileKind): { blob_key: string; content_type: string } | undefined {
  const renditions = renditionsOf(row);
  switch (kind) {
    case 'image': {
      const image = imageOf(row);
      return renditions.signed_image ?? { blob_key: image.blob_key, content_type: image.content_type };
    }
    case 'thumbnail':
      return renditions.thumbnail;
    case 'badge':
      return row.status === 'completed' && row.result === true ? renditions.badge : undefined;
    case 'heatmap':
      return renditions.heatmap;
    case 'raw_reference':
      return renditions.raw_reference;
  }
}

export function toSharedReport(
  row: VerificationRow,
  results: ResultRow[],
  extra: { processingRegion: string | null; accessType: AccessType | null; viewer: ViewerAccess; anchor: AnchorSummary | null; failure: FailureExplanation | null },
): SharedReport {
  const capture = captureOf(row);
  return {
    ...verificationFields(row),
    results: results.map((r) => ({ analysis: r.analysis, ...resultFields(r), recorded_at: isoDate(r.created_at)! })),
    capture: capture
      ? {
          attestation_validated: capture.attestation_validated === true,
          security_score: typeof capture.security_score === 'number' ? capture.security_score : null,
          integrity_score: typeof capture.integrity_score === 'number' ? capture.integrity_score : null,
        }
      : null,
    processing_region: extra.processingRegion,
    failure: extra.failure,
    anchor: extra.anchor,
    files: Object.fromEntries(sharedFileKinds.map((kind) => [kind, Boolean(sharedFileOf(row, kind))])) as Record<SharedFileKind, boolean>,
    access_type: extra.accessType,
    viewer: extra.viewer,
  };
}
