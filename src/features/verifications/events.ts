import { z } from 'zod';
import { analysisNames, assuranceLevels, verdictReasons, verdicts } from '../../analysis/types.js';
import { defineEvent, type EventOf } from '../../core/es/events.js';
import { streamName } from '../../core/es/streams.js';
import { DEADLINE_REASON, GENERIC_REASON, SERVICE_FAULT_REASON } from '../../../workflows/verifications/workflow.js';

/** The stream holding one verification's events: part of their contract (usage's metering release reads it). */
export const verificationStream = (id: string) => streamName('verification', id);

export const verificationModes = ['raw_pair', 'image_only'] as const;
export const verificationStatuses = ['pending', 'queued', 'in_progress', 'completed', 'failed'] as const;
export type VerificationStatus = (typeof verificationStatuses)[number];
/**
 * raw_reference: the RAW rendered and registered into the image's working grid (the report page's flicker comparison).
 * raw_rendition: the RAW rendered at full size as the analysis renders it (lossless PNG), kept so
 * the PSD export's RAW layer needs no RAW once it is discarded (RawFileDiscarded).
 */
export const renditionKinds = ['thumbnail', 'signed_image', 'badge', 'heatmap', 'raw_reference', 'raw_rendition'] as const;

/**
 * Whose a verification's failure is: `service` (the deadline, a stalled decoder, an unexpected
 * error: not metered, D-094) or `input` (the files or a rule refused them: metered).
 */
export const failureFaults = ['service', 'input'] as const;
export type FailureFault = (typeof failureFaults)[number];

/**
 * The upcast of a VerificationFailed recorded before it carried `fault`: the fault is read from
 * its reason as the service then decided refunds, by the service's own reasons' words (every
 * other reason was a rejection's, the input's). Used for those events only; new ones record it.
 */
function upcastFailure<D extends { failure_reason: string; fault?: FailureFault }>(data: D): D & { fault: FailureFault } {
  return data.fault ? (data as D & { fault: FailureFault }) : { ...data, fault: legacyFailureFault(data.failure_reason) };
}

/**
 * The rule of before `fault` was recorded, for what was decided before it only: the upcast above,
 * and a fail step scheduled by a run of an earlier version (its call carries no fault).
 */
export function legacyFailureFault(reason: string): FailureFault {
  const serviceReasons: readonly string[] = [DEADLINE_REASON, SERVICE_FAULT_REASON, GENERIC_REASON];
  return serviceReasons.includes(reason) ? 'service' : 'input';
}

const storedFile = z.object({
  blob_key: z.string(),
  filename: z.string(),
  format: z.string(),
  content_type: z.string(),
  size: z.number().int().nonnegative(),
  sha256: z.string(),
  sha512: z.string(),
});
export type StoredFile = z.infer<typeof storedFile>;

export const verificationEvents = {
  VerificationQueued: defineEvent(
    'VerificationQueued',
    z.object({
      verification_id: z.uuid(),
      account_id: z.uuid(),
      mode: z.enum(verificationModes),
      name: z.string(),
      short_code: z.string(),
      pipeline_build: z.string(),
      image: storedFile,
      raw: storedFile.nullable(),
      queued_at: z.iso.datetime(),
      /** Uploaded without credentials: account_id is the anonymous owner's derived id until claimed. */
      anonymous: z.boolean().default(false),
      /** Facts from a redeemed capture attestation (spec 2.1 capture fields). */
      capture: z
        .object({
          attestation_id: z.uuid(),
          security_score: z.number(),
          attestation_validated: z.literal(true),
          device_fingerprint_id: z.string(),
          camera_fingerprint_id: z.string().nullable(),
          sequence_number: z.number().int().nullable(),
          integrity_score: z.number(),
          jailbreak_indicators: z.array(z.string()),
          capture_gps_latitude: z.number().nullable(),
          capture_gps_longitude: z.number().nullable(),
        })
        .nullable()
        .default(null),
      /** Whether this verification counts against the monthly quota, and at what price. */
      billing: z.object({ counted: z.boolean(), overage: z.boolean(), price_eur: z.number().nonnegative() }),
    }),
  ),
  VerificationStarted: defineEvent('VerificationStarted', z.object({ started_at: z.iso.datetime() })),
  AnalysisRecorded: defineEvent(
    'AnalysisRecorded',
    z.object({
      result_id: z.uuid(),
      analysis: z.enum([...analysisNames, 'c2pa_credentials']),
      result: z.boolean().nullable(),
      confidence_score: z.number(),
      details: z.record(z.string(), z.unknown()),
      recorded_at: z.iso.datetime(),
    }),
  ),
  VerificationGraded: defineEvent(
    'VerificationGraded',
    z.object({
      assurance_level: z.enum(assuranceLevels),
      assurance_reason: z.string(),
      verdict: z.enum(verdicts).nullable(),
      verdict_reason: z.enum(verdictReasons).nullable(),
      capture_verified: z.boolean(),
      result: z.boolean(),
      result_confidence: z.number(),
      evidence_report: z.record(z.string(), z.unknown()).nullable(),
      raw_metadata: z.record(z.string(), z.unknown()),
      image_metadata: z.record(z.string(), z.unknown()),
      rendition_info: z.record(z.string(), z.unknown()),
      rendition_corrected_info: z.record(z.string(), z.unknown()),
      graded_at: z.iso.datetime(),
    }),
  ),
  RenditionStored: defineEvent(
    'RenditionStored',
    z.object({ kind: z.enum(renditionKinds), blob_key: z.string(), content_type: z.string(), sha256: z.string(), stored_at: z.iso.datetime() }),
  ),
  VerificationCompleted: defineEvent('VerificationCompleted', z.object({ completed_at: z.iso.datetime() })),
  /** `fault`: whose the failure is (failureFaults); recorded since issue 36, upcast for the events before it. */
  VerificationFailed: defineEvent('VerificationFailed', z.object({ failure_reason: z.string(), fault: z.enum(failureFaults).optional(), failed_at: z.iso.datetime() }).transform(upcastFailure)),
  VerificationClaimed: defineEvent(
    'VerificationClaimed',
    z.object({ previous_owner_account_id: z.uuid(), new_owner_account_id: z.uuid(), claimed_at: z.iso.datetime() }),
  ),
  VerificationDeleted: defineEvent('VerificationDeleted', z.object({ deleted_at: z.iso.datetime(), blob_keys: z.array(z.string()) })),
  /** The RAW's file deleted once the verification finished (spec 1: the RAW is used only for the check); its hash and metadata stay. */
  RawFileDiscarded: defineEvent('RawFileDiscarded', z.object({ blob_key: z.string(), sha256: z.string(), discarded_at: z.iso.datetime() })),
  /** An anonymous verification's 30-day claim window closed unclaimed: its files are deleted, the record stays. */
  ClaimWindowClosed: defineEvent('ClaimWindowClosed', z.object({ closed_at: z.iso.datetime(), blob_keys: z.array(z.string()) })),
} as const;
export type VerificationEvent = EventOf<typeof verificationEvents>;
export type GradeData = Extract<VerificationEvent, { type: 'VerificationGraded' }>['data'];
export type AnalysisData = Extract<VerificationEvent, { type: 'AnalysisRecorded' }>['data'];
export type RenditionKind = (typeof renditionKinds)[number];
