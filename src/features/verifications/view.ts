import { z } from 'zod';
import { assuranceLevels, verdicts } from '../../analysis/types.js';
import { verificationModes, verificationStatuses } from './events.js';
import { verdictReasons } from '../../analysis/types.js';
import { isoDate } from '../../core/http/schemas.js';
import { jsonColumn } from '../../core/es/json.js';
import { imageOf, rawOf, type ResultRow, type VerificationRow } from '../../../projections/verifications/index.js';
import { verificationSummary, type ReplayedResult, type VerificationState } from '../../../projections/verifications/index.js';

export const resultEntrySchema = z
  .object({
    id: z.uuid(),
    verificator_id: z.uuid(),
    verification_id: z.uuid(),
    result: z.boolean().nullable(),
    confidence_score: z.number(),
    details: z.record(z.string(), z.unknown()),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .openapi('ResultEntry');

export const verificationSchema = z
  .object({
    id: z.uuid(),
    status: z.enum(verificationStatuses),
    failure_reason: z.string().nullable(),
    results: z.array(resultEntrySchema),
    result: z.boolean().nullable().describe('Legacy: true = authentic. Key on assurance_level and capture_verified.'),
    result_confidence: z.number().describe('Average export similarity, not a probability.'),
    assurance_level: z.enum(assuranceLevels).nullable(),
    assurance_reason: z.string().nullable(),
    verdict: z.enum(verdicts).nullable(),
    verdict_reason: z.enum(verdictReasons).nullable(),
    evidence_report: z.record(z.string(), z.unknown()).nullable(),
    verification_mode: z.enum(verificationModes),
    capture_verified: z.boolean().nullable(),
    raw_metadata: z.record(z.string(), z.unknown()),
    image_metadata: z.record(z.string(), z.unknown()),
    rendition_info: z.record(z.string(), z.unknown()),
    rendition_corrected_info: z.record(z.string(), z.unknown()),
    raw_photo_hash: z.string().describe('sha256:<hex> of the RAW; empty in image-only mode.'),
    image_photo_hash: z.string().describe('sha256:<hex> of the image.'),
    image_thumbnail_url: z.string().describe('Pre-signed thumbnail URL (1 hour); empty until the thumbnail exists.'),
    name: z.string(),
    short_code: z.string(),
    request_id: z.string().nullable(),
    pipeline_build: z.string(),
    tags: z.array(z.object({ id: z.uuid(), name: z.string(), color: z.string().nullable() })),
    comment_count: z.number().int(),
    psd_export: z.record(z.string(), z.unknown()).nullable().optional().describe('The PSD export status (as GET …/psd-export answers it); null when none was requested.'),
    anchored_in: z.array(z.record(z.string(), z.unknown())).optional().describe('The anchor batches the verification is sealed in, each with all that is needed to check it offline (docs/audit.md "Anchors"); [] until it is anchored.'),
    account_id: z.uuid(),
    created_at: z.string(),
    updated_at: z.string(),
    security_score: z.number().optional().describe('Present when an attestation was supplied.'),
    attestation_validated: z.boolean().optional(),
    device_fingerprint_id: z.string().optional(),
    camera_fingerprint_id: z.string().nullable().optional(),
    sequence_number: z.number().int().nullable().optional(),
    integrity_score: z.number().optional(),
    jailbreak_indicators: z.array(z.string()).optional(),
    capture_gps_latitude: z.number().nullable().optional(),
    capture_gps_longitude: z.number().nullable().optional(),
  })
  .openapi('Verification');

export type VerificationView = z.infer<typeof verificationSchema>;

const parseJson = (value: unknown): Record<string, any> => jsonColumn<Record<string, any> | null>(value) ?? {};

/** A read-model row as the fold's state (projections/verifications/replay.ts): JSON columns parsed, times as the row has them. */
export function stateOfRow(row: VerificationRow): VerificationState {
  const json = (value: unknown) => (value === null || value === undefined ? null : parseJson(value));
  return {
    account_id: row.account_id,
    status: row.status,
    failure_reason: row.failure_reason ?? null,
    verification_mode: row.verification_mode,
    name: row.name,
    short_code: row.short_code,
    pipeline_build: row.pipeline_build,
    image: imageOf(row),
    raw: rawOf(row),
    billing: parseJson(row.billing),
    capture: json(row.capture),
    anonymous: row.anonymous_origin !== null && row.anonymous_origin !== undefined,
    result: row.result ?? null,
    result_confidence: Number(row.result_confidence ?? 0),
    assurance_level: row.assurance_level ?? null,
    assurance_reason: row.assurance_reason ?? null,
    verdict: row.verdict ?? null,
    verdict_reason: row.verdict_reason ?? null,
    evidence_report: json(row.evidence_report),
    capture_verified: row.capture_verified ?? null,
    raw_metadata: parseJson(row.raw_metadata),
    image_metadata: parseJson(row.image_metadata),
    rendition_info: parseJson(row.rendition_info),
    rendition_corrected_info: parseJson(row.rendition_corrected_info),
    created_at: isoDate(row.created_at)!,
    updated_at: isoDate(row.updated_at)!,
    raw_discarded_at: isoDate(row.raw_discarded_at),
    files_expired_at: isoDate(row.files_expired_at),
  };
}

/** A result row as the fold records it. */
export const replayedResultOfRow = (r: ResultRow): ReplayedResult => ({
  id: r.id,
  analysis: r.analysis,
  result: r.result,
  confidence_score: Number(r.confidence_score),
  details: parseJson(r.details),
  created_at: isoDate(r.created_at)!,
});

/**
 * The fields of a read-model row that every view of a verification shows the same way: the
 * owner's Verification (below), the shared report (sharing/report.ts) and the audit bundle all
 * start from these, computed by the fold's own summary (replay.ts), so a column is read,
 * defaulted and formatted in one place and an auditor's replay of the events gives the same.
 */
export function verificationFields(row: VerificationRow): Omit<ReturnType<typeof verificationSummary>, keyof EnumFields> & EnumFields {
  // The fold reads events as stored (plain strings); the row's enum columns keep their types.
  return verificationSummary(stateOfRow(row)) as Omit<ReturnType<typeof verificationSummary>, keyof EnumFields> & EnumFields;
}

type EnumFields = Pick<VerificationRow, 'status' | 'verification_mode' | 'assurance_level' | 'verdict' | 'verdict_reason'>;

/** An analysis's outcome as every view shows it (the owner's adds its ids, the shared report hides them). */
export function resultFields(r: ResultRow) {
  return { result: r.result, confidence_score: Number(r.confidence_score), details: parseJson(r.details) };
}

/** The capture attestation's facts, parsed; null when none was supplied. */
export const captureOf = (row: VerificationRow): Record<string, any> | null => (row.capture ? parseJson(row.capture) : null);

/**
 * Read-model rows to the spec's Verification (2.1). Fields other features add (tags,
 * comment_count: core/module/extensions.ts) are merged over these defaults by the use cases.
 */
export function toVerificationView(row: VerificationRow, results: ResultRow[], thumbnailUrl: string): VerificationView {
  return {
    id: row.id,
    ...verificationFields(row),
    results: results.map((r) => ({
      id: r.id,
      verificator_id: r.verificator_id,
      verification_id: r.verification_id,
      ...resultFields(r),
      created_at: isoDate(r.created_at)!,
      updated_at: isoDate(r.updated_at)!,
    })),
    image_thumbnail_url: thumbnailUrl,
    request_id: null,
    pipeline_build: row.pipeline_build,
    tags: [],
    comment_count: 0,
    account_id: row.account_id,
    ...captureFields(captureOf(row)),
  };
}

/** The capture fields appear only when an attestation was supplied. */
function captureFields(capture: Record<string, any> | null): Partial<VerificationView> {
  if (!capture) return {};
  const { attestation_id: _id, ...facts } = capture;
  return facts;
}
