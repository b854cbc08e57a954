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
  code === 'claim.missing' ||
  code === 'manifest.missing';

/** The signature or its credential cannot be relied on, independent of content changes. */
const isSignatureCode = (code: string): boolean =>
  code.startsWith('claimSignature.') ||
  code === 'signingCredential.invalid' ||
  code === 'signingCredential.revoked' ||
  code === 'algorithm.unsupported';

const IGNORED_FAILURES = new Set(['signingCredential.untrusted', 'signingCredential.expired']);

function decide(input: VerdictInput): Omit<VerdictResult, 'assurance_level'> {
  const unrated = (verdict_reason: VerdictReason) => ({ verdict: 'unrated' as const, verdict_reason });
  switch (input.outcome) {
    case 'no_manifest': {
      const declarations = input.metadataAiDeclarations;
      if (declarations.some((d) => d.source === 'xmp')) return { verdict: 'self_declared_ai', verdict_reason: 'iptc_digital_source_type' };
      if (declarations.length > 0) return { verdict: 'self_declared_ai', verdict_reason: 'generator_metadata' };
      return unrated('unrated_no_evidence');
    }
    case 'unknown_algorithm':
      return unrated('invalid_signature');
    case 'remote_manifest':
    case 'prerelease':
    case 'unreadable':
      return unrated('unrated_indeterminate');
    case 'manifest':
      break;
    default: {
      const unhandled: never = input.outcome;
      throw new TypeError(`unhandled outcome ${String(unhandled)}`);
    }
  }
  const failures = input.failureCodes.filter((c) => !c.startsWith('cawg.'));
  if (failures.some(isTamperCode)) return { verdict: 'modified_after_signing', verdict_reason: 'tampered' };
  if (failures.some((c) => c.startsWith('claimSignature.'))) {
    return { verdict: 'modified_after_signing', verdict_reason: 'invalid_signature' };
  }
  if (failures.some(isSignatureCode)) return unrated('invalid_signature');
  if (failures.some((c) => !IGNORED_FAILURES.has(c) && !isTamperCode(c) && !isSignatureCode(c))) {
    return unrated('unrated_indeterminate');
  }
  if (input.c2paAiDeclarations.length > 0) {
    return input.signerTrust === 'trusted'
      ? { verdict: 'ai_declared', verdict_reason: 'c2pa_generative_declared' }
      : { verdict: 'self_declared_ai', verdict_reason: 'untrusted_signer_generative' };
  }
  if (failures.includes('signingCredential.expired') && !input.timestampTrusted) return unrated('no_trusted_timestamp');
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
