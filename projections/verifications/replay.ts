/**
 * The one fold of a verification's events (issue 35): what each event sets on the verification's
 * read model, and the summary shown of it. The projector (projection.ts) writes these values to
 * its tables; the offline verifier (src/core/audit/audit-verify.ts) folds a bundle's hashed events
 * through the same functions and compares the result with what the bundle shows, so a summary
 * can only say what its events say.
 *
 * Imports nothing and uses no Node built-in: the auditor's page loads this very file, compiled,
 * in the browser (src/features/auditor/assets.ts). Events are read as stored (a bundle's events
 * are not parsed with the zod catalogue), so optional fields are read with their defaults here.
 */

/** An event as the fold reads it: a bundle's event or a stored one. */
export interface ReplayedEvent {
  type: string;
  data: Record<string, any>;
  metadata: { occurred_at: string };
}

/** The verification's columns, as values (JSON columns as objects, times as ISO strings). */
export interface VerificationState {
  account_id: string;
  status: string;
  failure_reason: string | null;
  verification_mode: string;
  name: string;
  short_code: string;
  pipeline_build: string;
  image: { sha256: string } & Record<string, unknown>;
  raw: ({ sha256: string } & Record<string, unknown>) | null;
  billing: Record<string, unknown>;
  capture: Record<string, unknown> | null;
  anonymous: boolean;
  result: boolean | null;
  result_confidence: number;
  assurance_level: string | null;
  assurance_reason: string | null;
  verdict: string | null;
  verdict_reason: string | null;
  evidence_report: Record<string, unknown> | null;
  capture_verified: boolean | null;
  raw_metadata: Record<string, unknown>;
  image_metadata: Record<string, unknown>;
  rendition_info: Record<string, unknown>;
  rendition_corrected_info: Record<string, unknown>;
  created_at: string;
  updated_at: string;
  raw_discarded_at: string | null;
  files_expired_at: string | null;
}

/** One analysis's outcome as recorded (the read model's verification_results row, without the ids it derives). */
export interface ReplayedResult {
  id: string;
  analysis: string;
  result: boolean | null;
  confidence_score: number;
  details: Record<string, unknown>;
  created_at: string;
}

/**
 * What one event does to the verification: the columns it sets, a result it records, a
 * rendition it stores (the projector merges it into `renditions`), or the verification's removal.
 * null for an event that is not a verification event (the fold ignores it, as the projector does).
 */
export type VerificationChange =
  | { kind: 'queued'; state: VerificationState }
  | { kind: 'update'; columns: Partial<VerificationState> }
  | { kind: 'result'; result: ReplayedResult; columns: Partial<VerificationState> }
  | { kind: 'rendition'; rendition: { kind: string; blob_key: string; content_type: string }; columns: Partial<VerificationState> }
  | { kind: 'claimed'; columns: Partial<VerificationState> & { account_id: string } }
  | { kind: 'closed'; columns: Partial<VerificationState> }
  | { kind: 'deleted' };

export function verificationChange(event: ReplayedEvent): VerificationChange | null {
  const d = event.data;
  const at = event.metadata.occurred_at;
  switch (event.type) {
    case 'VerificationQueued':
      return {
        kind: 'queued',
        state: {
          account_id: d.account_id,
          status: 'queued',
          failure_reason: null,
          verification_mode: d.mode,
          name: d.name,
          short_code: d.short_code,
          pipeline_build: d.pipeline_build,
          image: d.image,
          raw: d.raw ?? null,
          billing: d.billing,
          capture: d.capture ?? null,
          anonymous: d.anonymous ?? false,
          result: null,
          result_confidence: 0,
          assurance_level: null,
          assurance_reason: null,
          verdict: null,
          verdict_reason: null,
          evidence_report: null,
          capture_verified: null,
          raw_metadata: {},
          image_metadata: {},
          rendition_info: {},
          rendition_corrected_info: {},
          created_at: d.queued_at,
          updated_at: d.queued_at,
          raw_discarded_at: null,
          files_expired_at: null,
        },
      };
    case 'VerificationStarted':
      return { kind: 'update', columns: { status: 'in_progress', updated_at: at } };
    case 'AnalysisRecorded':
      return {
        kind: 'result',
        result: {
          id: d.result_id,
          analysis: d.analysis,
          result: d.result,
          confidence_score: d.confidence_score,
          details: { analysis: d.analysis, ...d.details },
          created_at: d.recorded_at,
        },
        columns: { updated_at: at },
      };
    case 'VerificationGraded':
      return {
        kind: 'update',
        columns: {
          result: d.result,
          result_confidence: d.result_confidence,
          assurance_level: d.assurance_level,
          assurance_reason: d.assurance_reason,
          verdict: d.verdict ?? null,
          verdict_reason: d.verdict_reason ?? null,
          evidence_report: d.evidence_report ?? null,
          capture_verified: d.capture_verified,
          raw_metadata: d.raw_metadata,
          image_metadata: d.image_metadata,
          rendition_info: d.rendition_info,
          rendition_corrected_info: d.rendition_corrected_info,
          updated_at: d.graded_at,
        },
      };
    case 'RenditionStored':
      return { kind: 'rendition', rendition: { kind: d.kind, blob_key: d.blob_key, content_type: d.content_type }, columns: { updated_at: d.stored_at } };
    case 'VerificationCompleted':
      return { kind: 'update', columns: { status: 'completed', updated_at: d.completed_at } };
    case 'VerificationFailed':
      return { kind: 'update', columns: { status: 'failed', failure_reason: d.failure_reason, updated_at: d.failed_at } };
    case 'VerificationClaimed':
      return { kind: 'claimed', columns: { account_id: d.new_owner_account_id, updated_at: d.claimed_at } };
    case 'VerificationDeleted':
      return { kind: 'deleted' };
    case 'RawFileDiscarded':
      return { kind: 'update', columns: { raw_discarded_at: d.discarded_at, updated_at: d.discarded_at } };
    case 'ClaimWindowClosed':
      // The files are gone: the projector also empties the renditions it links to.
      return { kind: 'closed', columns: { files_expired_at: d.closed_at, updated_at: d.closed_at } };
    default:
      return null;
  }
}

export interface ReplayedVerification {
  state: VerificationState;
  results: ReplayedResult[];
}

/** Folds a verification's events, in stream order; null before it is queued or once it is deleted. */
export function foldVerification(events: readonly ReplayedEvent[]): ReplayedVerification | null {
  let folded: ReplayedVerification | null = null;
  for (const event of events) {
    const change = verificationChange(event);
    if (!change) continue;
    if (change.kind === 'queued') {
      folded ??= { state: { ...change.state }, results: [] };
      continue;
    }
    if (change.kind === 'deleted') {
      folded = null;
      continue;
    }
    if (!folded) continue;
    Object.assign(folded.state, change.columns);
    if (change.kind === 'result') folded.results.push(change.result);
  }
  return folded;
}

/** A time as every view shows it (the read model gives Dates, events ISO strings). */
const iso = (value: string | Date | null | undefined): string | null => (value === null || value === undefined ? null : new Date(value).toISOString());

/**
 * The verification as its summaries show it (the owner's Verification, the shared report, the
 * audit bundle): the read model's row and a bundle's replay both pass through here.
 */
export function verificationSummary(state: VerificationState) {
  return {
    name: state.name,
    short_code: state.short_code,
    status: state.status,
    failure_reason: state.failure_reason ?? null,
    verification_mode: state.verification_mode,
    result: state.result ?? null,
    result_confidence: Number(state.result_confidence ?? 0),
    assurance_level: state.assurance_level ?? null,
    assurance_reason: state.assurance_reason ?? null,
    verdict: state.verdict ?? null,
    verdict_reason: state.verdict_reason ?? null,
    capture_verified: state.capture_verified ?? null,
    evidence_report: state.evidence_report ?? null,
    raw_metadata: state.raw_metadata ?? {},
    image_metadata: state.image_metadata ?? {},
    rendition_info: state.rendition_info ?? {},
    rendition_corrected_info: state.rendition_corrected_info ?? {},
    image_photo_hash: `sha256:${state.image.sha256}`,
    raw_photo_hash: state.raw ? `sha256:${state.raw.sha256}` : '',
    created_at: iso(state.created_at)!,
    updated_at: iso(state.updated_at)!,
  };
}

/** One analysis's outcome as the audit bundle shows it. */
export const resultSummary = (r: ReplayedResult) => ({
  id: r.id,
  analysis: r.analysis,
  result: r.result ?? null,
  confidence_score: Number(r.confidence_score),
  details: r.details,
  created_at: iso(r.created_at)!,
});

/**
 * The audit bundle's `verification` (format 2), from a fold or from the read model's row: every
 * field a replay of the bundle's events rebuilds. The service shows the read model's; the
 * verifier replays the events and compares field by field.
 */
export function auditedVerification(state: VerificationState, results: readonly ReplayedResult[]) {
  return {
    ...verificationSummary(state),
    account_id: state.account_id,
    pipeline_build: state.pipeline_build,
    raw_discarded_at: iso(state.raw_discarded_at),
    files_expired_at: iso(state.files_expired_at),
    capture: state.capture ?? null,
    // Sorted by id: the read model keeps no order of its own.
    results: results.map(resultSummary).sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)),
  };
}

/** The verification stream's replay for the audit bundle and its verifier (src/core/audit/audit-verify.ts BundleReplays). */
export function replayStream(events: readonly ReplayedEvent[]): Record<string, unknown> | null {
  const folded = foldVerification(events);
  return folded ? auditedVerification(folded.state, folded.results) : null;
}
