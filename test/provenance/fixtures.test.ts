import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { checkCredentials } from '../../src/provenance/check.js';
import { readManifestStore } from '../../src/provenance/read.js';
import { noTrustAnchors } from '../../src/provenance/trust.js';
import { detectImageFormat, mimeTypes } from '../../src/provenance/format.js';
import { fixture } from './helpers/paths.js';
import { c2paPython, referenceRead } from './helpers/reference.js';

// No trust anchors are configured here (no official list is available offline), so every
// valid signer is `unchecked`: see docs/verdicts.md for the verdicts with anchors.
type Row = [file: string, state: string | undefined, verdict: string, reason: string, extra?: string];
const c2paTable: Row[] = [
  ['jsl_c2pa-actions-1.2.png', 'Valid', 'unrated', 'trust_unverified'],
  // Firefly 1.0 wrote no digitalSourceType, but its claim generator and com.adobe.generative-ai assertion declare it.
  ['jsl_firefly-1.jpg', 'Valid', 'self_declared_ai', 'untrusted_signer_generative', 'c2pa.claim_generator'],
  ['jsl_gen-fill.jpg', 'Valid', 'self_declared_ai', 'untrusted_signer_generative'],
  ['ms_DALL-E_cloud_surfing_puppy.webp', 'Valid', 'self_declared_ai', 'untrusted_signer_generative', 'c2pa.ingredient'],
  ['ms_cards_expired_without_timestamp.jpg', 'Invalid', 'unrated', 'no_trusted_timestamp'],
  ['ms_cards_invalid.jpg', 'Invalid', 'modified_after_signing', 'tampered'],
  ['ms_cards_trusted.avif', 'Invalid', 'unrated', 'invalid_signature'],
  ['ms_cards_trusted.webp', 'Invalid', 'unrated', 'invalid_signature'],
  ['pt_adobe-20220124-A.jpg', undefined, 'unrated', 'unrated_no_evidence', 'no_manifest'],
  ['pt_adobe-20220124-C.jpg', 'Valid', 'unrated', 'trust_unverified'],
  ['pt_adobe-20220124-CA.jpg', 'Valid', 'unrated', 'trust_unverified'],
  ['pt_adobe-20220124-CAICAI.jpg', 'Valid', 'unrated', 'trust_unverified'],
  ['pt_adobe-20220124-E-clm-CAICAI.jpg', 'Invalid', 'modified_after_signing', 'tampered'],
  ['pt_adobe-20220124-E-dat-CA.jpg', 'Invalid', 'modified_after_signing', 'tampered'],
  ['pt_adobe-20220124-E-sig-CA.jpg', 'Invalid', 'modified_after_signing', 'invalid_signature'],
  ['pt_adobe-20220124-E-uri-CA.jpg', 'Invalid', 'modified_after_signing', 'tampered'],
  ['pt_adobe-20220124-XCA.jpg', 'Invalid', 'modified_after_signing', 'tampered'],
  ['pt_nikon-20221019-building.jpeg', 'Invalid', 'unrated', 'no_trusted_timestamp'],
  ['pt_truepic-20230212-camera.jpg', 'Invalid', 'modified_after_signing', 'tampered'],
  ['py_C.dng', 'Valid', 'self_declared_ai', 'untrusted_signer_generative'],
  ['rs_100kb-signed.gif', 'Valid', 'self_declared_ai', 'untrusted_signer_generative'],
  ['rs_100kb-signed.png', 'Valid', 'self_declared_ai', 'untrusted_signer_generative'],
  ['rs_100kb-signed.tiff', 'Valid', 'self_declared_ai', 'untrusted_signer_generative'],
  ['rs_C_with_CAWG_data.jpg', 'Valid', 'unrated', 'trust_unverified'],
  ['rs_IMG_0003_aca.png', 'Invalid', 'unrated', 'no_trusted_timestamp'],
  ['rs_cloud_remote_manifest.jpg', undefined, 'unrated', 'unrated_indeterminate', 'remote_manifest'],
  ['rs_firefly.png', 'Valid', 'self_declared_ai', 'untrusted_signer_generative'],
  ['rs_no_alg.jpg', undefined, 'unrated', 'invalid_signature', 'unknown_algorithm'],
  ['rs_ocsp_photoshop_genfill.jpg', 'Valid', 'self_declared_ai', 'untrusted_signer_generative'],
  ['rs_prerelease.jpg', undefined, 'unrated', 'unrated_indeterminate', 'prerelease'],
  ['rs_verify_photoshop2022.jpeg', 'Valid', 'unrated', 'trust_unverified'],
  ['tn_amazon-titan-g1.png', 'Valid', 'self_declared_ai', 'untrusted_signer_generative'],
  ['tn_trustnxt-icon-signed-v2-bmff-2.heic', 'Invalid', 'modified_after_signing', 'tampered'],
  ['tn_trustnxt-icon-signed-v2.heic', 'Valid', 'unrated', 'trust_unverified'],
];

describe('shared C2PA fixtures', () => {
  it('the table covers every file in fixtures/c2pa', () => {
    expect(c2paTable.map((r) => r[0]).sort()).toEqual(readdirSync(fixture('c2pa')).sort());
  });

  it.each(c2paTable)('%s reads %s and grades %s / %s', async (file, state, verdict, reason, extra) => {
    const report = await checkCredentials(readFileSync(fixture('c2pa', file)), noTrustAnchors);
    expect(report.evidence_report.validation_state).toBe(state);
    expect([report.verdict, report.verdict_reason]).toEqual([verdict, reason]);
    expect(report.assurance_level).toBe(verdict === 'modified_after_signing' ? 'flagged' : 'unrated');
    if (extra?.startsWith('c2pa.')) expect(report.evidence_report.ai_declarations.map((d) => d.source)).toContain(extra);
    else if (extra) expect(report.evidence_report.outcome).toBe(extra);
    if (state) {
      // Every status carries its explanation; failures imply Invalid except trust/CAWG ones.
      const codes = Object.values(report.evidence_report.status_codes).flat();
      expect(codes.length).toBeGreaterThan(0);
      for (const c of codes) expect(c.explanation).not.toBe('');
    }
  });

  it('our state function agrees with the state c2pa-rs reports on every manifest', async () => {
    for (const [file, state] of c2paTable) {
      if (!state) continue;
      const bytes = readFileSync(fixture('c2pa', file));
      const outcome = await readManifestStore(bytes, mimeTypes[detectImageFormat(bytes)!], noTrustAnchors);
      expect(outcome.kind).toBe('manifest');
      if (outcome.kind === 'manifest') expect([file, outcome.state]).toEqual([file, outcome.reportedState]);
    }
  });

  // One reference process per fixture file: sized by work, so a busy machine gets time enough.
  c2paPython.it('c2pa-python (reference) reports the same state and failures, active and ingredient, on every file', { timeout: 600_000 }, async () => {
    const readerErrors: Record<string, RegExp> = {
      no_manifest: /ManifestNotFound/,
      remote_manifest: /Remote/,
      unknown_algorithm: /unknown algorithm/i,
      prerelease: /prerelease/i,
    };
    const sorted = (codes: string[] | undefined) => [...(codes ?? [])].sort();
    for (const [file] of c2paTable) {
      const bytes = readFileSync(fixture('c2pa', file));
      const mime = mimeTypes[detectImageFormat(bytes)!];
      const ours = await readManifestStore(bytes, mime, noTrustAnchors);
      const reference = referenceRead(bytes, mime);
      if (ours.kind !== 'manifest') {
        expect([file, reference.error]).toEqual([file, expect.stringMatching(readerErrors[ours.kind] ?? /^$/)]);
        continue;
      }
      const active = ours.statuses.failure.filter((s) => s.scope === 'active').map((s) => s.code);
      const ingredients = ours.statuses.failure.filter((s) => s.scope !== 'active').map((s) => s.code);
      expect([file, ours.state, sorted(active), sorted(ingredients)]).toEqual([
        file,
        reference.validation_state,
        sorted(reference.failures),
        sorted(reference.ingredient_failures),
      ]);
    }
  });

  it('reports the remote manifest URL without fetching it', async () => {
    const report = await checkCredentials(readFileSync(fixture('c2pa', 'rs_cloud_remote_manifest.jpg')), noTrustAnchors);
    expect(report.evidence_report.remote_manifest_url).toMatch(/^https:\/\/cai-manifests\.adobe\.com\//);
  });

  it('finds digitalSourceType inside action parameters and ingredient manifests', async () => {
    const genfill = await checkCredentials(readFileSync(fixture('c2pa', 'rs_ocsp_photoshop_genfill.jpg')), noTrustAnchors);
    const sources = genfill.evidence_report.ai_declarations.map((d) => `${d.source}:${d.sourceType}`);
    expect(sources).toContain('c2pa.action:compositeWithTrainedAlgorithmicMedia');
    expect(sources).toContain('c2pa.ingredient:trainedAlgorithmicMedia');
  });
});

describe('plain images (no credentials)', () => {
  const files = readdirSync(fixture('images'));
  it.each(files)('%s has no manifest and grades unrated / unrated_no_evidence', async (file) => {
    const report = await checkCredentials(readFileSync(fixture('images', file)), noTrustAnchors);
    expect(report.evidence_report.outcome).toBe('no_manifest');
    expect([report.verdict, report.verdict_reason, report.assurance_level]).toEqual(['unrated', 'unrated_no_evidence', 'unrated']);
  });
});
