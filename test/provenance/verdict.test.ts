import sharp from 'sharp';
import { readFileSync } from 'node:fs';
import { crc32, deflateSync as zlibSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { verdictReasons } from '../../src/analysis/types.js';
import { checkCredentials } from '../../src/provenance/check.js';
import { noTrustAnchors } from '../../src/provenance/trust.js';
import { decideVerdict, unproducibleReasons, type VerdictInput } from '../../src/provenance/verdict.js';
import { fixture } from './helpers/paths.js';

const base: VerdictInput = {
  outcome: 'manifest',
  failureCodes: [],
  ingredientFailureCodes: [],
  signerTrust: 'trusted',
  timestampTrusted: false,
  c2paAiDeclarations: [],
  captureKind: 'capture',
  unlistedActions: [],
  metadataAiDeclarations: [],
};
const ai = { sourceType: 'trainedAlgorithmicMedia', source: 'c2pa.action', location: 'x' };

describe('decideVerdict (pure table)', () => {
  it.each<[string, Partial<VerdictInput>, string, string, string]>([
    ['hash mismatch', { failureCodes: ['assertion.dataHash.mismatch', 'signingCredential.untrusted'] }, 'modified_after_signing', 'tampered', 'flagged'],
    ['claim signature mismatch', { failureCodes: ['claimSignature.mismatch'] }, 'modified_after_signing', 'invalid_signature', 'flagged'],
    ['bad certificate profile', { failureCodes: ['signingCredential.invalid'] }, 'unrated', 'invalid_signature', 'unrated'],
    ['unknown algorithm', { outcome: 'unknown_algorithm' }, 'unrated', 'invalid_signature', 'unrated'],
    ['unclassified failure', { failureCodes: ['general.error'] }, 'unrated', 'unrated_indeterminate', 'unrated'],
    ['AI by trusted signer', { c2paAiDeclarations: [ai] }, 'ai_declared', 'c2pa_generative_declared', 'unrated'],
    ['AI by legacy signer', { c2paAiDeclarations: [ai], signerTrust: 'legacy' }, 'self_declared_ai', 'untrusted_signer_generative', 'unrated'],
    ['expired, no trusted timestamp', { failureCodes: ['signingCredential.expired'], signerTrust: 'untrusted' }, 'unrated', 'no_trusted_timestamp', 'unrated'],
    ['no anchors configured', { signerTrust: 'unchecked' }, 'unrated', 'trust_unverified', 'unrated'],
    ['untrusted signer', { signerTrust: 'untrusted' }, 'unrated', 'untrusted_signer', 'unrated'],
    ['no capture claim', { captureKind: 'none' }, 'unrated', 'no_capture_claim', 'unrated'],
    ['unlisted actions', { unlistedActions: ['c2pa.edited'] }, 'unrated', 'unlisted_actions_present', 'unrated'],
    ['computational capture', { captureKind: 'computational' }, 'provenance_verified', 'computational_capture_only', 'provenance'],
    ['trusted capture', {}, 'provenance_verified', 'c2pa_trusted_capture', 'provenance'],
    ['remote manifest', { outcome: 'remote_manifest' }, 'unrated', 'unrated_indeterminate', 'unrated'],
    ['prerelease', { outcome: 'prerelease' }, 'unrated', 'unrated_indeterminate', 'unrated'],
    ['no manifest, XMP AI', { outcome: 'no_manifest', metadataAiDeclarations: [{ ...ai, source: 'xmp' }] }, 'self_declared_ai', 'iptc_digital_source_type', 'unrated'],
    ['no manifest, generator text', { outcome: 'no_manifest', metadataAiDeclarations: [{ ...ai, source: 'png_text' }] }, 'self_declared_ai', 'generator_metadata', 'unrated'],
    ['no manifest, nothing', { outcome: 'no_manifest' }, 'unrated', 'unrated_no_evidence', 'unrated'],
    // Ingredient failures (c2pa-rs: Invalid) weigh like the active manifest's own.
    ['ingredient assertion mismatch, trusted capture', { ingredientFailureCodes: ['signingCredential.untrusted', 'assertion.hashedURI.mismatch'] }, 'modified_after_signing', 'tampered', 'flagged'],
    ['ingredient missing', { ingredientFailureCodes: ['ingredient.manifest.missing'] }, 'modified_after_signing', 'tampered', 'flagged'],
    ['ingredient claim signature mismatch', { ingredientFailureCodes: ['claimSignature.mismatch'] }, 'modified_after_signing', 'invalid_signature', 'flagged'],
    ['ingredient signature and assertion (issue 10)', { ingredientFailureCodes: ['claimSignature.mismatch', 'assertion.hashedURI.mismatch'] }, 'modified_after_signing', 'tampered', 'flagged'],
    ['ingredient credential invalid', { ingredientFailureCodes: ['signingCredential.invalid'] }, 'unrated', 'invalid_signature', 'unrated'],
    ['ingredient credential expired', { ingredientFailureCodes: ['signingCredential.expired'] }, 'unrated', 'no_trusted_timestamp', 'unrated'],
    ['ingredient unclassified failure', { ingredientFailureCodes: ['general.error'] }, 'unrated', 'unrated_indeterminate', 'unrated'],
    ['ingredient signer untrusted only', { ingredientFailureCodes: ['signingCredential.untrusted'] }, 'provenance_verified', 'c2pa_trusted_capture', 'provenance'],
    // AI declarations count whatever the credential's validity; only tampering comes first.
    ['AI under an invalid credential (Bing Image Creator)', { c2paAiDeclarations: [ai], failureCodes: ['signingCredential.untrusted', 'signingCredential.invalid'], signerTrust: 'unchecked' }, 'self_declared_ai', 'untrusted_signer_generative', 'unrated'],
    ['AI by a trusted but revoked credential', { c2paAiDeclarations: [ai], failureCodes: ['signingCredential.revoked'] }, 'self_declared_ai', 'untrusted_signer_generative', 'unrated'],
    ['AI by a trusted, expired credential without trusted timestamp', { c2paAiDeclarations: [ai], failureCodes: ['signingCredential.expired'] }, 'self_declared_ai', 'untrusted_signer_generative', 'unrated'],
    ['AI by a trusted signer with a broken ingredient credential', { c2paAiDeclarations: [ai], ingredientFailureCodes: ['signingCredential.invalid'] }, 'self_declared_ai', 'untrusted_signer_generative', 'unrated'],
    ['AI with an unclassified failure', { c2paAiDeclarations: [ai], failureCodes: ['general.error'], signerTrust: 'untrusted' }, 'self_declared_ai', 'untrusted_signer_generative', 'unrated'],
    ['AI, content changed after signing', { c2paAiDeclarations: [ai], failureCodes: ['assertion.dataHash.mismatch'] }, 'modified_after_signing', 'tampered', 'flagged'],
    ['AI, claim signature broken', { c2paAiDeclarations: [ai], failureCodes: ['claimSignature.mismatch'] }, 'modified_after_signing', 'invalid_signature', 'flagged'],
    ['AI in a manifest and in XMP: the signed one decides', { c2paAiDeclarations: [ai], metadataAiDeclarations: [{ ...ai, source: 'xmp' }] }, 'ai_declared', 'c2pa_generative_declared', 'unrated'],
    ['XMP AI beside a trusted capture manifest', { metadataAiDeclarations: [{ ...ai, source: 'xmp' }] }, 'self_declared_ai', 'iptc_digital_source_type', 'unrated'],
    ['generator metadata beside an invalid credential', { metadataAiDeclarations: [{ ...ai, source: 'exif_software' }], failureCodes: ['signingCredential.invalid'] }, 'self_declared_ai', 'generator_metadata', 'unrated'],
    ['XMP AI beside a tampered manifest', { metadataAiDeclarations: [{ ...ai, source: 'xmp' }], failureCodes: ['assertion.dataHash.mismatch'] }, 'modified_after_signing', 'tampered', 'flagged'],
    ['XMP AI, manifest with an unknown algorithm', { outcome: 'unknown_algorithm', metadataAiDeclarations: [{ ...ai, source: 'xmp' }] }, 'self_declared_ai', 'iptc_digital_source_type', 'unrated'],
    ['generator metadata, remote manifest', { outcome: 'remote_manifest', metadataAiDeclarations: [{ ...ai, source: 'png_text' }] }, 'self_declared_ai', 'generator_metadata', 'unrated'],
  ])('%s', (_name, patch, verdict, reason, assurance) => {
    expect(decideVerdict({ ...base, ...patch })).toEqual({ verdict, verdict_reason: reason, assurance_level: assurance });
  });

  it('every spec verdict_reason is produced by some input or documented as unproducible', () => {
    const produced = new Set<string>();
    const inputs: Array<Partial<VerdictInput>> = [
      { failureCodes: ['assertion.dataHash.mismatch'] }, { failureCodes: ['claimSignature.mismatch'] }, { failureCodes: ['general.error'] },
      { c2paAiDeclarations: [ai] }, { c2paAiDeclarations: [ai], signerTrust: 'untrusted' },
      { failureCodes: ['signingCredential.expired'] }, { signerTrust: 'unchecked' }, { signerTrust: 'untrusted' },
      { captureKind: 'none' }, { unlistedActions: ['x'] }, { captureKind: 'computational' }, {},
      { outcome: 'no_manifest', metadataAiDeclarations: [{ ...ai, source: 'xmp' }] },
      { outcome: 'no_manifest', metadataAiDeclarations: [{ ...ai, source: 'exif_software' }] }, { outcome: 'no_manifest' },
    ];
    for (const patch of inputs) produced.add(decideVerdict({ ...base, ...patch }).verdict_reason);
    for (const reason of verdictReasons) expect([reason, produced.has(reason) || reason in unproducibleReasons]).toEqual([reason, true]);
    const docs = readFileSync(new URL('../../docs/verdicts.md', import.meta.url), 'utf8');
    for (const reason of verdictReasons) expect(docs).toContain(`\`${reason}\``);
  });
});

/** Inserts a PNG text chunk before IEND. */
function withPngChunk(png: Uint8Array, type: string, data: Buffer): Buffer {
  const buf = Buffer.from(png);
  const iend = buf.lastIndexOf(Buffer.from('IEND', 'latin1')) - 4;
  const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body) >>> 0);
  return Buffer.concat([buf.subarray(0, iend), length, body, crc, buf.subarray(iend)]);
}

describe('AI self-declarations without C2PA', () => {
  const plainPng = () => sharp({ create: { width: 16, height: 16, channels: 3, background: '#336699' } }).png().toBuffer();

  it('a Stable Diffusion "parameters" tEXt chunk -> self_declared_ai / generator_metadata', async () => {
    const png = withPngChunk(await plainPng(), 'tEXt', Buffer.from('parameters\0a cat, Steps: 20, Sampler: Euler a', 'latin1'));
    const report = await checkCredentials(png, noTrustAnchors);
    expect([report.verdict, report.verdict_reason]).toEqual(['self_declared_ai', 'generator_metadata']);
    expect(report.evidence_report.ai_declarations).toEqual([{ sourceType: 'generator', source: 'png_text', location: 'parameters' }]);
  });

  it('a compressed ComfyUI "prompt" zTXt chunk is found too', async () => {
    const data = Buffer.concat([Buffer.from('prompt\0\0', 'latin1'), zlibSync(Buffer.from('{"3":{"class_type":"KSampler"}}'))]);
    const report = await checkCredentials(withPngChunk(await plainPng(), 'zTXt', data), noTrustAnchors);
    expect(report.verdict_reason).toBe('generator_metadata');
  });

  it('IPTC DigitalSourceType in XMP -> self_declared_ai / iptc_digital_source_type', async () => {
    const xmp =
      '<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">' +
      '<rdf:Description xmlns:Iptc4xmpExt="http://iptc.org/std/Iptc4xmpExt/2008-02-29/" ' +
      'Iptc4xmpExt:DigitalSourceType="http://cv.iptc.org/newscodes/digitalsourcetype/trainedAlgorithmicMedia"/>' +
      '</rdf:RDF></x:xmpmeta>';
    const jpeg = await sharp(readFileSync(fixture('images/rs_P1000827.jpg'))).withXmp(xmp).jpeg().toBuffer();
    const report = await checkCredentials(jpeg, noTrustAnchors);
    expect([report.verdict, report.verdict_reason]).toEqual(['self_declared_ai', 'iptc_digital_source_type']);
  });

  it('a digitalCapture XMP declaration is not an AI declaration', async () => {
    const xmp = '<x:xmpmeta xmlns:x="adobe:ns:meta/"><Iptc4xmpExt:DigitalSourceType>http://cv.iptc.org/newscodes/digitalsourcetype/digitalCapture</Iptc4xmpExt:DigitalSourceType></x:xmpmeta>';
    const jpeg = await sharp(readFileSync(fixture('images/rs_P1000827.jpg'))).withXmp(xmp).jpeg().toBuffer();
    expect((await checkCredentials(jpeg, noTrustAnchors)).verdict_reason).toBe('unrated_no_evidence');
  });

  it('EXIF Software naming a generator -> generator_metadata', async () => {
    const jpeg = await sharp(await plainPng()).withExif({ IFD0: { Software: 'Midjourney v6' } }).jpeg().toBuffer();
    const report = await checkCredentials(jpeg, noTrustAnchors);
    expect([report.verdict, report.verdict_reason]).toEqual(['self_declared_ai', 'generator_metadata']);
    expect(report.evidence_report.ai_declarations[0]).toMatchObject({ source: 'exif_software', location: 'Software' });
  });
});
