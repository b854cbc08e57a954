import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { checkCredentials } from '../../src/provenance/check.js';
import { readManifestStore } from '../../src/provenance/read.js';
import { signManifest } from '../../src/provenance/sign.js';
import { anchorsFromPem, noTrustAnchors } from '../../src/provenance/trust.js';
import { derToPem } from '../../src/provenance/x509.js';
import { ingredientVariant, ingredientVariantSource, type IngredientVariant } from './helpers/ingredient-variants.js';
import { fixture } from './helpers/paths.js';
import { makeCa, signerFrom, validNow } from './helpers/pki.js';
import { c2paPython, pythonAvailable, referenceRead } from './helpers/reference.js';

// Failures inside an ingredient's manifest count: c2pa-rs reports the store Invalid, and the
// verdict maps them like the active manifest's own (docs/verdicts.md, "Ingredient failures").
const cases: Array<[IngredientVariant, string[], string, string]> = [
  ['assertion', ['assertion.hashedURI.mismatch'], 'modified_after_signing', 'tampered'],
  ['signature', ['claimSignature.mismatch'], 'modified_after_signing', 'invalid_signature'],
  ['both', ['claimSignature.mismatch', 'assertion.hashedURI.mismatch'], 'modified_after_signing', 'tampered'],
];

describe(`failures in an ingredient's manifest (variants of ${ingredientVariantSource})`, () => {
  it('the untouched source is Valid with no ingredient failure but an untrusted signer', async () => {
    const report = await checkCredentials(readFileSync(fixture(ingredientVariantSource)), noTrustAnchors);
    expect(report.evidence_report.validation_state).toBe('Valid');
    const scoped = report.evidence_report.status_codes.failure.filter((s) => s.scope !== 'active').map((s) => s.code);
    expect(scoped).toEqual(['signingCredential.untrusted']);
  });

  it.each(cases)('%s: collected in the ingredient delta, Invalid, %s -> %s / %s', async (kind, codes, verdict, reason) => {
    const bytes = await ingredientVariant(kind);
    const outcome = await readManifestStore(bytes, 'image/jpeg', noTrustAnchors);
    expect(outcome.kind).toBe('manifest');
    if (outcome.kind !== 'manifest') return;
    // The active manifest itself is intact: every failure sits in an ingredient delta...
    expect(outcome.statuses.failure.filter((s) => s.scope === 'active').map((s) => s.code)).toEqual(['signingCredential.untrusted']);
    const ingredientFailures = outcome.statuses.failure.filter((s) => s.scope !== 'active');
    // ...all of them (continue and collect: the signature failure does not hide the assertion's).
    expect(ingredientFailures.map((s) => s.code)).toEqual(expect.arrayContaining(codes));
    expect(ingredientFailures.every((s) => s.scope.includes('c2pa.ingredient'))).toBe(true);
    // The state we compute is the state c2pa-rs reports.
    expect([outcome.state, outcome.reportedState]).toEqual(['Invalid', 'Invalid']);

    const report = await checkCredentials(bytes, noTrustAnchors);
    expect([report.verdict, report.verdict_reason, report.assurance_level]).toEqual([verdict, reason, 'flagged']);
  });

  c2paPython.it('c2pa-python (reference) reports the same state and the same failures', async () => {
    for (const [kind] of cases) {
      const bytes = await ingredientVariant(kind);
      const outcome = await readManifestStore(bytes, 'image/jpeg', noTrustAnchors);
      if (outcome.kind !== 'manifest') throw new Error(`${kind}: no manifest`);
      const reference = referenceRead(bytes, 'image/jpeg');
      expect([kind, reference.validation_state]).toEqual([kind, outcome.state]);
      const ours = outcome.statuses.failure.filter((s) => s.scope !== 'active').map((s) => s.code);
      expect([kind, [...(reference.ingredient_failures ?? [])].sort()]).toEqual([kind, [...ours].sort()]);
    }
  });

  it('failures the signer recorded when it took the ingredient are evidence, not a change after signing', async () => {
    // A trusted signer opens the broken file as its parent: c2pa-rs records the ingredient's
    // failures in the ingredient assertion and leaves them out of the deltas (state Trusted).
    const ca = makeCa('Recording signer CA');
    const parent = await ingredientVariant('both');
    const definition = {
      claim_generator_info: [{ name: 'PhotoVerify tests', version: '1' }],
      title: 'child.jpg',
      format: 'image/jpeg',
      assertions: [
        {
          label: 'c2pa.actions.v2',
          data: { actions: [{ action: 'c2pa.opened', digitalSourceType: 'http://cv.iptc.org/newscodes/digitalsourcetype/digitalCapture', parameters: { ingredientIds: ['parent'] } }] },
        },
      ],
    };
    const child = await signManifest(readFileSync(fixture('images/rs_P1000827.jpg')), 'image/jpeg', definition, signerFrom(ca, validNow()), [
      { bytes: parent, format: 'image/jpeg', definition: { title: 'parent.jpg', format: 'image/jpeg', relationship: 'parentOf', label: 'parent' } },
    ]);
    const anchors = { signer: anchorsFromPem(derToPem(ca.der)), tsa: [], legacy: [] };
    const report = await checkCredentials(child, anchors);
    expect(report.evidence_report.validation_state).toBe('Trusted');
    expect(report.evidence_report.status_codes.failure).toEqual([]);
    expect(report.evidence_report.ingredients[0]?.recorded_failures).toEqual(expect.arrayContaining(['claimSignature.mismatch', 'assertion.hashedURI.mismatch']));
    expect(report.verdict).toBe('provenance_verified');
    if (pythonAvailable) expect(referenceRead(child, 'image/jpeg', derToPem(ca.der)).validation_state).toBe('Trusted');
  });
});
