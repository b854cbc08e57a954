import type { AssuranceLevel, Verdict, VerdictReason } from '../../analysis/types.js';

/**
 * What an assurance level, a verdict and a verdict's reason mean, in words (docs/verdicts.md,
 * spec 1 and src/analysis/grading.ts). One table for everyone who explains a verification:
 * the MCP tools' summaries (summary.ts) and the shared report page (sharing), so an agent and a
 * reader of the report are told the same thing.
 */

export const levelWords: Record<AssuranceLevel, { label: string; pair: string; imageOnly: string }> = {
  verified: {
    label: 'Verified',
    pair: 'The camera RAW file holds real sensor data and the photo is a faithful rendering of it: the capture is verified.',
    imageOnly: 'The capture is verified.',
  },
  provisional: {
    label: 'Provisional',
    pair: 'The photo matches the camera RAW file, but the RAW could not be confirmed as the camera’s original sensor data (for example, a converter wrote it). No badge is issued.',
    imageOnly: 'The photo matches, but its source could not be confirmed as original sensor data.',
  },
  provenance: {
    label: 'Provenance verified',
    pair: 'Trusted Content Credentials record the capture.',
    imageOnly: 'The file carries valid Content Credentials, signed by a trusted signer, that record a capture by a camera.',
  },
  unrated: {
    label: 'Unrated',
    pair: 'The evidence cannot decide either way. This is not a judgement against the photo.',
    imageOnly: 'The file’s credentials do not establish how it was captured. This is not a judgement against it; an AI declaration, if any, is stated in the verdict.',
  },
  flagged: {
    label: 'Flagged',
    pair: 'The evidence contradicts the photo: it does not correspond to the camera RAW file, or the RAW is not real sensor data. The reason and the analyses below say which.',
    imageOnly: 'The image or its Content Credentials were changed after they were signed.',
  },
};

export const verdictWords: Record<Verdict, { label: string; meaning: string }> = {
  ai_declared: {
    label: 'AI-generated (declared)',
    meaning: 'Content Credentials from a trusted signer declare that the image was generated or edited with generative AI.',
  },
  self_declared_ai: {
    label: 'AI-generated (self-declared)',
    meaning:
      'The file declares that it was generated or edited with generative AI, but no trusted signer stands behind the declaration. Nobody declares a genuine photo to be generated, so the declaration counts whoever made it.',
  },
  modified_after_signing: {
    label: 'Modified after signing',
    meaning: 'The image or its Content Credentials changed after they were signed: nothing in the credentials can be attributed to the signer.',
  },
  provenance_verified: {
    label: 'Provenance verified',
    meaning: 'Trusted Content Credentials record a capture by a camera, with no edits outside the permitted list.',
  },
  unrated: {
    label: 'Unrated',
    meaning: 'The evidence does not decide how the image was made.',
  },
};

export const reasonWords: Record<VerdictReason, string> = {
  watermark_detected: 'An invisible AI watermark was detected.',
  c2pa_generative_declared: 'The Content Credentials declare generative AI, and their signer is trusted.',
  tampered: 'The content or the signed manifest changed after signing: a hash no longer matches.',
  invalid_signature: 'A signature or signing certificate is invalid or revoked, or uses an unsupported algorithm.',
  c2pa_trusted_capture: 'Trusted Content Credentials record a camera capture.',
  untrusted_signer_generative: 'Generative AI is declared in the Content Credentials, but the signer is not on the trust list or the credential cannot be relied on.',
  iptc_digital_source_type: 'The file’s own (unsigned) metadata declares generative AI as its digital source type.',
  generator_metadata: 'The file’s own (unsigned) metadata names an AI image generator.',
  container_signature: 'A camera maker’s container signature was found.',
  untrusted_signer: 'The Content Credentials are valid, but their signer is not on the trust list.',
  trust_unverified: 'The Content Credentials are valid, but there was no trust list to check the signer against.',
  no_capture_claim: 'The Content Credentials are trusted but do not claim a camera capture.',
  no_trusted_timestamp: 'The signing certificate has expired and no trusted timestamp places the signature within its validity.',
  unlisted_actions_present: 'A trusted capture was followed by edits outside the permitted list.',
  computational_capture_only: 'Trusted Content Credentials record a computational capture (for example a phone’s multi-frame processing).',
  unrated_indeterminate: 'The evidence is indeterminate.',
  unrated_reviewed_clean: 'A person reviewed the file and found nothing either way.',
  unrated_no_evidence: 'The file carries no Content Credentials and declares nothing about how it was made.',
};
