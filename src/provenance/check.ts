/**
 * Image-only mode: detect the format, read and validate the Content Credentials, look for
 * unsigned AI declarations, and return the verdict with an evidence report.
 */
import type { AssuranceLevel, Verdict, VerdictReason } from '../analysis/types.js';
import { FileError } from '../core/errors.js';
import {
  activeActions,
  captureKind,
  manifestAiDeclarations,
  unlistedActions,
  type ActionSummary,
  type AiDeclaration,
} from './declarations.js';
import { detectImageFormat, mimeTypes, type ImageFormat } from './format.js';
import { metadataAiDeclarations } from './metadata-declarations.js';
import { readManifestStore, type ReadOutcome, type SignerTrust } from './read.js';
import { collectStatuses, emptyBuckets, failureCodes, nonInvalidating, type StatusBuckets, type ValidationState } from './status.js';
import type { TrustAnchors } from './trust.js';
import { decideVerdict, type CredentialOutcome } from './verdict.js';

export interface EvidenceReport {
  format: ImageFormat;
  outcome: CredentialOutcome;
  /** Absent when there is no manifest to validate. */
  validation_state?: ValidationState;
  status_codes: StatusBuckets;
  signer?: { common_name?: string; issuer?: string; serial_number?: string; algorithm?: string; trust: SignerTrust };
  timestamp?: { time?: string; trusted: boolean };
  active_manifest?: string;
  manifest_count: number;
  claim_generator?: string;
  actions: ActionSummary[];
  ingredients: Array<{
    title?: string;
    format?: string;
    relationship?: string;
    has_manifest: boolean;
    /**
     * Failures the signer recorded for the ingredient when it took it. They are the signer's
     * knowledge at signing time, not a change since: c2pa-rs leaves them out of the ingredient
     * deltas (and of the state), and so does the verdict. Failures found now are in status_codes.
     */
    recorded_failures: string[];
  }>;
  ai_declarations: AiDeclaration[];
  remote_manifest_url?: string;
  error?: string;
}

export interface CredentialsReport {
  verdict: Verdict;
  verdict_reason: VerdictReason;
  assurance_level: AssuranceLevel;
  evidence_report: EvidenceReport;
}

/**
 * The invalidating failures recorded in an ingredient assertion: v3 ingredients keep buckets,
 * older ones a flat list that holds only problems. An untrusted signer is not one.
 */
function recordedFailures(ingredient: { validation_status?: unknown; validation_results?: unknown }): string[] {
  const codes = ingredient.validation_results
    ? collectStatuses(ingredient.validation_results).failure.map((s) => s.code)
    : Array.isArray(ingredient.validation_status)
      ? ingredient.validation_status.flatMap((s: unknown) => {
          const code = (s as { code?: unknown } | null)?.code;
          return typeof code === 'string' ? [code] : [];
        })
      : [];
  return [...new Set(codes.filter((code) => !nonInvalidating(code)))];
}

function evidenceFrom(format: ImageFormat, outcome: ReadOutcome): Omit<EvidenceReport, 'ai_declarations'> {
  const base = { format, outcome: outcome.kind, status_codes: emptyBuckets(), manifest_count: 0, actions: [], ingredients: [] };
  switch (outcome.kind) {
    case 'manifest': {
      const { store } = outcome;
      const active = store.active_manifest ? store.manifests?.[store.active_manifest] : undefined;
      const info = active?.signature_info;
      const generator = active?.claim_generator_info?.[0];
      return {
        ...base,
        validation_state: outcome.state,
        status_codes: outcome.statuses,
        signer: {
          common_name: info?.common_name,
          issuer: info?.issuer,
          serial_number: info?.cert_serial_number,
          algorithm: info?.alg,
          trust: outcome.signerTrust,
        },
        ...(info?.time
          ? { timestamp: { time: info.time, trusted: outcome.statuses.success.some((s) => s.scope === 'active' && s.code === 'timeStamp.trusted') } }
          : {}),
        active_manifest: store.active_manifest,
        manifest_count: Object.keys(store.manifests ?? {}).length,
        claim_generator: active?.claim_generator ?? (generator ? [generator.name, generator.version].filter(Boolean).join(' ') : undefined),
        actions: activeActions(active),
        ingredients: (active?.ingredients ?? []).map((i) => ({
          title: i.title,
          format: i.format,
          relationship: i.relationship,
          has_manifest: Boolean(i.active_manifest),
          recorded_failures: recordedFailures(i),
        })),
      };
    }
    case 'remote_manifest':
      return { ...base, remote_manifest_url: outcome.url };
    case 'unknown_algorithm':
    case 'prerelease':
    case 'unreadable':
      return { ...base, error: outcome.error };
    case 'no_manifest':
      return base;
  }
}

export async function checkCredentials(bytes: Uint8Array, anchors: TrustAnchors): Promise<CredentialsReport> {
  const format = detectImageFormat(bytes);
  if (!format) {
    throw new FileError('UNSUPPORTED_FORMAT', 'The file is not a JPEG, PNG, WebP, HEIF/HEIC, AVIF, TIFF, GIF or DNG image.', {
      suggestion: 'Upload the image file itself; the format is recognised by content, not by name.',
    });
  }
  const outcome = await readManifestStore(bytes, mimeTypes[format], anchors);
  const evidence = evidenceFrom(format, outcome);
  const c2paDeclarations = outcome.kind === 'manifest' ? manifestAiDeclarations(outcome.store) : [];
  // Unsigned metadata is read whatever the manifest says: a declaration of AI counts wherever it is written.
  const metadataDeclarations = await metadataAiDeclarations(bytes, format);
  const timestampTrusted = evidence.timestamp?.trusted ?? false;
  const failures = outcome.kind === 'manifest' ? failureCodes(outcome.statuses) : { active: [], ingredients: [] };
  const result = decideVerdict({
    outcome: outcome.kind,
    failureCodes: failures.active,
    ingredientFailureCodes: failures.ingredients,
    signerTrust: outcome.kind === 'manifest' ? outcome.signerTrust : 'unchecked',
    timestampTrusted,
    c2paAiDeclarations: c2paDeclarations,
    captureKind: captureKind(evidence.actions),
    unlistedActions: unlistedActions(evidence.actions),
    metadataAiDeclarations: metadataDeclarations,
  });
  return { ...result, evidence_report: { ...evidence, ai_declarations: [...c2paDeclarations, ...metadataDeclarations] } };
}
