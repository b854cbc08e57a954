import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkCredentials, type CredentialsReport } from '../../src/provenance/check.js';
import { DEV_CA_NAME, ensureDevelopmentSigner } from '../../src/provenance/dev-signer.js';
import { readManifestStore } from '../../src/provenance/read.js';
import { signManifest, signVerifiedImage, VERIFICATION_ASSERTION_LABEL } from '../../src/provenance/sign.js';
import type { SignerConfig } from '../../src/provenance/signer-config.js';
import { anchorsFromPem, noTrustAnchors, type TrustAnchors } from '../../src/provenance/trust.js';
import { derToPem } from '../../src/provenance/x509.js';
import { fixture } from './helpers/paths.js';
import { c2paPython, pythonAvailable, referenceRead } from './helpers/reference.js';
import { makeCa, signerFrom, validNow, type TestCa } from './helpers/pki.js';
import { startLocalTsa, type LocalTsa } from './helpers/tsa.js';
import { pairJpeg as jpeg, signInput as input } from './helpers/sign-input.js';

const anchorsOf = (signer: TestCa[], tsa: TestCa[] = [], legacy: TestCa[] = []): TrustAnchors => ({
  signer: anchorsFromPem(...signer.map((c) => derToPem(c.der))),
  tsa: anchorsFromPem(...tsa.map((c) => derToPem(c.der))),
  legacy: anchorsFromPem(...legacy.map((c) => derToPem(c.der))),
});
const verdictOf = (r: CredentialsReport) => [r.verdict, r.verdict_reason];
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Cross-check with c2pa-python (the reference implementation) when it is importable. */
/** The validation state c2pa-python reports (test/provenance/helpers/reference.ts reads it). */
const referenceState = (bytes: Uint8Array, mime: string, anchorPem?: string) => referenceRead(bytes, mime, anchorPem).validation_state;

let ca: TestCa;
let signer: SignerConfig;
let signed: Uint8Array;

beforeAll(async () => {
  ca = makeCa('PhotoVerify test CA');
  signer = signerFrom(ca, validNow());
  signed = await signVerifiedImage(input(), signer);
});

describe('development signer', () => {
  it('is created once in <dataDir>/c2pa-dev and reused afterwards', async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'pv-data-'));
    const first = await ensureDevelopmentSigner(dataDir);
    const second = await ensureDevelopmentSigner(dataDir);
    expect(first.directory).toBe(path.join(dataDir, 'c2pa-dev'));
    expect(Buffer.from(second.signer.chain[0]!).equals(Buffer.from(first.signer.chain[0]!))).toBe(true);
    expect(first.signer.development).toBe(true);
    expect(Buffer.from(first.signer.chain[1]!).toString('utf8')).toContain(DEV_CA_NAME);
    expect(readFileSync(path.join(first.directory, 'README.txt'), 'utf8')).toMatch(/NOT trusted/);

    const out = await signVerifiedImage(input(), first.signer);
    const anchors = { ...noTrustAnchors, signer: anchorsFromPem(readFileSync(first.caCertificateFile, 'utf8')) };
    const report = await checkCredentials(out, anchors);
    expect(report.evidence_report.validation_state).toBe('Trusted');
    expect(report.evidence_report.signer?.common_name).toMatch(/DEVELOPMENT/);
  });
});

describe('signVerifiedImage', () => {
  it('reads back Valid without anchors and Trusted with the CA as anchor', async () => {
    const open = await checkCredentials(signed, noTrustAnchors);
    expect(open.evidence_report.validation_state).toBe('Valid');
    expect(verdictOf(open)).toEqual(['unrated', 'trust_unverified']);

    const trusted = await checkCredentials(signed, anchorsOf([ca]));
    expect(trusted.evidence_report.validation_state).toBe('Trusted');
    expect(verdictOf(trusted)).toEqual(['provenance_verified', 'c2pa_trusted_capture']);
    expect(trusted.assurance_level).toBe('provenance');
    expect(trusted.evidence_report.signer).toMatchObject({ trust: 'trusted', algorithm: 'Es256' });
    expect(trusted.evidence_report.ingredients).toEqual([
      { title: 'IMG_5952.CR2', format: 'image/x-canon-cr2', relationship: 'parentOf', has_manifest: false, recorded_failures: [] },
    ]);
  });

  it('records the verification as a custom assertion', async () => {
    const outcome = await readManifestStore(signed, 'image/jpeg', noTrustAnchors);
    if (outcome.kind !== 'manifest') throw new Error(outcome.kind);
    const manifest = outcome.store.manifests![outcome.store.active_manifest!]!;
    const assertion = manifest.assertions!.find((a) => a.label === VERIFICATION_ASSERTION_LABEL);
    expect(assertion?.data).toEqual({
      verification_id: '3f1c2a9e-5a43-4c1e-9b1a-0d6f1f1b2c3d',
      assurance_level: 'verified',
      capture_verified: true,
      image_sha256: 'ee9d178bd581a70f',
      raw_sha256: '9f4958fb43824fdc',
      pipeline_build: 'test-build',
      processing_region: 'eu-central',
    });
  });

  it('signs HEIC too', async () => {
    const heic = readFileSync(fixture('images/exifr_iphone7.heic'));
    const out = await signVerifiedImage(input(heic, 'image/heic'), signer);
    const report = await checkCredentials(out, anchorsOf([ca]));
    expect(report.evidence_report.format).toBe('heif');
    expect(report.evidence_report.validation_state).toBe('Trusted');
    if (pythonAvailable) expect(referenceState(out, 'image/heic', derToPem(ca.der))).toBe('Trusted');
  });

  c2paPython.it('agrees with c2pa-python (reference implementation)', () => {
    expect(referenceState(signed, 'image/jpeg')).toBe('Valid');
    expect(referenceState(signed, 'image/jpeg', derToPem(ca.der))).toBe('Trusted');
  });
});

describe('tampering with signed outputs', () => {
  it('one flipped pixel byte reads Invalid / tampered', async () => {
    const copy = new Uint8Array(signed);
    const at = copy.length - 2000; // inside the entropy-coded scan, after the manifest
    copy[at] = copy[at]! ^ 0x01;
    const report = await checkCredentials(copy, anchorsOf([ca]));
    expect(report.evidence_report.validation_state).toBe('Invalid');
    expect(verdictOf(report)).toEqual(['modified_after_signing', 'tampered']);
    expect(report.assurance_level).toBe('flagged');
    if (pythonAvailable) expect(referenceState(copy, 'image/jpeg', derToPem(ca.der))).toBe('Invalid');
  });

  it('an edited assertion byte reads Invalid / tampered', async () => {
    const copy = Buffer.from(signed);
    const at = copy.indexOf('eu-central');
    expect(at).toBeGreaterThan(0);
    copy.write('eu-cantral', at, 'latin1');
    const report = await checkCredentials(copy, anchorsOf([ca]));
    expect(report.evidence_report.validation_state).toBe('Invalid');
    expect(report.evidence_report.status_codes.failure.map((s) => s.code)).toContain('assertion.hashedURI.mismatch');
    expect(verdictOf(report)).toEqual(['modified_after_signing', 'tampered']);
  });

  it('a truncated file never reads Valid', async () => {
    for (const length of [Math.floor(signed.length / 2), 30_000, 2_000]) {
      const report = await checkCredentials(signed.subarray(0, length), anchorsOf([ca])).catch((e: Error) => e);
      if (report instanceof Error) expect(report.name).toBe('FileError');
      else expect(report.verdict).not.toBe('provenance_verified');
    }
  });

  it('a re-sign with an untrusted key reads untrusted_signer', async () => {
    const rogue = makeCa('Rogue CA');
    const out = await signVerifiedImage(input(), signerFrom(rogue, validNow()));
    const report = await checkCredentials(out, anchorsOf([ca]));
    expect(report.evidence_report.validation_state).toBe('Valid');
    expect(report.evidence_report.signer?.trust).toBe('untrusted');
    expect(verdictOf(report)).toEqual(['unrated', 'untrusted_signer']);
  });
});

describe('timestamps (local openssl TSA)', () => {
  let tsaCa: TestCa;
  let tsa: LocalTsa;
  beforeAll(async () => {
    tsaCa = makeCa('PhotoVerify test TSA CA');
    tsa = await startLocalTsa(tsaCa);
  });
  afterAll(() => tsa.close());

  /**
   * Two signatures (without and with a timestamp) under one certificate that expires right after
   * them, returned once it has expired. Certificate times have whole seconds, so it ends at the
   * start of the second its notAfter falls in. The validity window starts at 1.5 s and doubles
   * whenever signing (slow on a busy machine) did not finish inside it: no fixed sleep decides.
   */
  async function signedThenExpired(): Promise<{ noTimestamp: Uint8Array; withTimestamp: Uint8Array }> {
    for (let windowMs = 1500; windowMs <= 24_000; windowMs *= 2) {
      const validity = { notBefore: new Date(Date.now() - 86_400_000), notAfter: new Date(Date.now() + windowMs) };
      const expiresAt = Math.floor(validity.notAfter.getTime() / 1000) * 1000;
      const sign = (tsaUrl?: string) =>
        signVerifiedImage(input(), signerFrom(ca, validity, tsaUrl)).catch((error: unknown) => {
          if (Date.now() < expiresAt) throw error; // a real failure, not the certificate running out
          return undefined;
        });
      const noTimestamp = await sign();
      const withTimestamp = await sign(tsa.url);
      if (!noTimestamp || !withTimestamp || Date.now() >= expiresAt) continue;
      await sleep(expiresAt - Date.now() + 2000);
      return { noTimestamp, withTimestamp };
    }
    throw new Error('signing twice took longer than a 24 s certificate lifetime');
  }

  it('a timestamped signature is trusted through the TSA list', async () => {
    const out = await signVerifiedImage(input(), signerFrom(ca, validNow(), tsa.url));
    expect(tsa.requests).toBeGreaterThan(0);
    const report = await checkCredentials(out, anchorsOf([ca], [tsaCa]));
    expect(report.evidence_report.timestamp?.trusted).toBe(true);
    expect(verdictOf(report)).toEqual(['provenance_verified', 'c2pa_trusted_capture']);
  });

  it('expired certificate without timestamp: Invalid / no_trusted_timestamp; with timestamp: Trusted', async () => {
    const { noTimestamp, withTimestamp } = await signedThenExpired();
    const expired = await checkCredentials(noTimestamp, anchorsOf([ca], [tsaCa]));
    expect(expired.evidence_report.validation_state).toBe('Invalid');
    expect(expired.evidence_report.status_codes.failure.map((s) => s.code)).toContain('signingCredential.expired');
    expect(verdictOf(expired)).toEqual(['unrated', 'no_trusted_timestamp']);

    const stamped = await checkCredentials(withTimestamp, anchorsOf([ca], [tsaCa]));
    expect(stamped.evidence_report.validation_state).toBe('Trusted');
    expect(verdictOf(stamped)).toEqual(['provenance_verified', 'c2pa_trusted_capture']);
    // Without the TSA anchor the timestamp does not count and the expiry does.
    const untrustedTsa = await checkCredentials(withTimestamp, anchorsOf([ca]));
    expect(verdictOf(untrustedTsa)).toEqual(['unrated', 'no_trusted_timestamp']);
  }, 120_000); // room for the longer certificate lifetimes signedThenExpired falls back to

  it('keeps the lists separate: a TSA anchor never makes a signer trusted, nor the reverse', async () => {
    const out = await signVerifiedImage(input(), signerFrom(ca, validNow(), tsa.url));
    const signerUnderTsaList = await checkCredentials(out, anchorsOf([tsaCa], [ca]));
    expect(signerUnderTsaList.evidence_report.signer?.trust).toBe('untrusted');
    expect(signerUnderTsaList.evidence_report.timestamp?.trusted).toBe(false);
    expect(signerUnderTsaList.evidence_report.validation_state).toBe('Valid');
  });
});

describe('trust lists and declarations on our own credentials', () => {
  it('reports a signer under the legacy (interim) list as legacy', async () => {
    const report = await checkCredentials(signed, anchorsOf([makeCa('Current list CA')], [], [ca]));
    expect(report.evidence_report.signer?.trust).toBe('legacy');
    expect(report.evidence_report.status_codes.informational.map((s) => s.code)).toContain('signingCredential.legacyTrustList');
    expect(report.evidence_report.validation_state).toBe('Valid');
    expect(verdictOf(report)).toEqual(['unrated', 'untrusted_signer']);
  });

  const dst = (term: string) => `http://cv.iptc.org/newscodes/digitalsourcetype/${term}`;
  const withActions = (actions: unknown[]) => ({
    claim_generator_info: [{ name: 'PhotoVerify tests', version: '1' }],
    format: 'image/jpeg',
    assertions: [{ label: 'c2pa.actions.v2', data: { actions } }],
  });
  it.each([
    ['generative AI, trusted signer', [{ action: 'c2pa.created', digitalSourceType: dst('trainedAlgorithmicMedia') }], 'ai_declared', 'c2pa_generative_declared'],
    ['computational capture', [{ action: 'c2pa.created', digitalSourceType: dst('computationalCapture') }], 'provenance_verified', 'computational_capture_only'],
    ['capture then an unlisted edit', [{ action: 'c2pa.created', digitalSourceType: dst('digitalCapture') }, { action: 'c2pa.edited' }], 'unrated', 'unlisted_actions_present'],
    ['capture then listed adjustments', [{ action: 'c2pa.created', digitalSourceType: dst('digitalCapture') }, { action: 'c2pa.cropped' }, { action: 'c2pa.color_adjustments' }], 'provenance_verified', 'c2pa_trusted_capture'],
    ['no capture claim', [{ action: 'c2pa.created', digitalSourceType: dst('digitalArt') }], 'unrated', 'no_capture_claim'],
  ])('%s', async (_name, actions, verdict, reason) => {
    const out = await signManifest(jpeg, 'image/jpeg', withActions(actions), signer);
    const report = await checkCredentials(out, anchorsOf([ca]));
    expect(report.evidence_report.validation_state).toBe('Trusted');
    expect(verdictOf(report)).toEqual([verdict, reason]);
  });
});
