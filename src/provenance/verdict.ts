/**
 * The image-only verdict: one pure function from what was read and validated to the spec's
 * `verdict` + `verdict_reason`, and the assurance level derived from it. The table in
 * docs/verdicts.md mirrors the rule order below; keep them in step.
 */
import type { AssuranceLevel, Verdict, VerdictReason } from '../analysis/types.js';
import type { AiDeclaration, CaptureKind } from './declarations.js';
import type { SignerTrust } from './read.js';

export type CredentialOutcome =
  | 'manifest'
  | 'no_manifest'
  | 'remote_manifest'
  | 'unknown_algorithm'
  | 'prerelease'
  | 'unreadable';

export interface VerdictInput {
  outcome: CredentialOutcome;
  /** Active-manifest failure codes (empty without a manifest). */
  failureCodes: string[];
  /**
   * Failure codes of ingredient manifests that c2pa-rs reports as deltas: failures the active
   * manifest's signer did not record when it took the ingredient (empty without a manifest).
   */
  ingredientFailureCodes: string[];
  signerTrust: SignerTrust;
  timestampTrusted: boolean;
  /** Generative declarations inside the manifest store (signed). */
  c2paAiDeclarations: AiDeclaration[];
  captureKind: CaptureKind;
  unlistedActions: string[];
  /** Unsigned declarations from XMP, PNG text chunks, EXIF Software. */
  metadataAiDeclarations: AiDeclaration[];
}

export interface VerdictResult {
  verdict: Verdict;
  verdict_reason: VerdictReason;
  assurance_level: AssuranceLevel;
}

/** The content changed after signing: a hard binding or an assertion no longer matches. */
const isTamperCode = (code: string): boolean =>
  /^assertion\.[\w.]+\.mismatch$/.test(code) ||
  code === 'assertion.missing' ||
  code === 'assertion.hashedURI.missing' ||
  code === 'ingredient.manifest.missing' ||
  code === 'ingredient.manifest.mismatch' ||
  code === 'ingredient.claimSignature.missing' ||
  code === 'ingredient.claimSignature.mismatch' ||
  code === 'claim.missing' ||
  code === 'manifest.missing';

/** The claim no longer matches its signature: whatever it declares cannot be attributed to anyone. */
const isClaimSignatureCode = (code: string): boolean => code.startsWith('claimSignature.');

/** The signing credential cannot be relied on, independent of content changes. */
const isCredentialCode = (code: string): boolean =>
  code === 'signingCredential.invalid' || code === 'signingCredential.revoked' || code === 'algorithm.unsupported';

const IGNORED_FAILURES = new Set(['signingCredential.untrusted', 'signingCredential.expired']);

const metadataVerdict = (declarations: AiDeclaration[]) =>
  ({
    verdict: 'self_declared_ai' as const,
    verdict_reason: declarations.some((d) => d.source === 'xmp') ? ('iptc_digital_source_type' as const) : ('generator_metadata' as const),
  });

function decide(input: VerdictInput): Omit<VerdictResult, 'assurance_level'> {
  const unrated = (verdict_reason: VerdictReason) => ({ verdict: 'unrated' as const, verdict_reason });
  const metadataAi = input.metadataAiDeclarations.length > 0;
  switch (input.outcome) {
    case 'no_manifest':
      return metadataAi ? metadataVerdict(input.metadataAiDeclarations) : unrated('unrated_no_evidence');
    case 'unknown_algorithm':
      return metadataAi ? metadataVerdict(input.metadataAiDeclarations) : unrated('invalid_signature');
    case 'remote_manifest':
    case 'prerelease':
    case 'unreadable':
      return metadataAi ? metadataVerdict(input.metadataAiDeclarations) : unrated('unrated_indeterminate');
    case 'manifest':
      break;
    default: {
      const unhandled: never = input.outcome;
      throw new TypeError(`unhandled outcome ${String(unhandled)}`);
    }
  }
  // Active and ingredient failures weigh alike: c2pa-rs reports either as Invalid.
  const failures = [...input.failureCodes, ...input.ingredientFailureCodes].filter((c) => !c.startsWith('cawg.'));
  if (failures.some(isTamperCode)) return { verdict: 'modified_after_signing', verdict_reason: 'tampered' };
  if (failures.some(isClaimSignatureCode)) return { verdict: 'modified_after_signing', verdict_reason: 'invalid_signature' };
  const expiredUntimed =
    (input.failureCodes.includes('signingCredential.expired') && !input.timestampTrusted) ||
    input.ingredientFailureCodes.includes('signingCredential.expired');
  const otherFailures = failures.filter((c) => !IGNORED_FAILURES.has(c) && !isCredentialCode(c));
  // A declaration of AI in an intact manifest counts whoever signed it: the signer's trust and
  // the credential's validity only decide whether it is ai_declared or self-declared.
  if (input.c2paAiDeclarations.length > 0) {
    const reliable = input.signerTrust === 'trusted' && !failures.some(isCredentialCode) && otherFailures.length === 0 && !expiredUntimed;
    return reliable
      ? { verdict: 'ai_declared', verdict_reason: 'c2pa_generative_declared' }
      : { verdict: 'self_declared_ai', verdict_reason: 'untrusted_signer_generative' };
  }
  if (metadataAi) return metadataVerdict(input.metadataAiDeclarations);
  if (failures.some(isCredentialCode)) return unrated('invalid_signature');
  if (otherFailures.length > 0) return unrated('unrated_indeterminate');
  if (expiredUntimed) return unrated('no_trusted_timestamp');
  if (input.signerTrust === 'unchecked') return unrated('trust_unverified');
  if (input.signerTrust !== 'trusted') return unrated('untrusted_signer');
  if (input.captureKind === 'none') return unrated('no_capture_claim');
  if (input.unlistedActions.length > 0) return unrated('unlisted_actions_present');
  if (input.captureKind === 'computational') return { verdict: 'provenance_verified', verdict_reason: 'computational_capture_only' };
  return { verdict: 'provenance_verified', verdict_reason: 'c2pa_trusted_capture' };
}

export function assuranceFor(verdict: Verdict): AssuranceLevel {
  if (verdict === 'provenance_verified') return 'provenance';
  if (verdict === 'modified_after_signing') return 'flagged';
  return 'unrated';
}

export function decideVerdict(input: VerdictInput): VerdictResult {
  const result = decide(input);
  return { ...result, assurance_level: assuranceFor(result.verdict) };
}

/** Reasons this module can never produce, and why (documented in docs/verdicts.md). */
export const unproducibleReasons: Partial<Record<VerdictReason, string>> = {
  watermark_detected: 'needs an invisible-watermark detector (e.g. SynthID, Digimarc); none is available',
  container_signature: 'vendor container signatures (Canon ODD, Nikon Image Authentication, Sony) need proprietary keys',
  unrated_reviewed_clean: 'set by a human reviewer, not by automatic reading',
};
