/** Test PKI: CAs, signers (also expired ones) and a TSA certificate made with the same builder. */
import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { issueCertificate, type CertificateProfile, type DistinguishedName } from '../../../src/provenance/x509.js';
import type { SignerConfig } from '../../../src/provenance/signer-config.js';

export interface TestCa {
  name: DistinguishedName;
  privateKey: KeyObject;
  publicKey: KeyObject;
  der: Uint8Array;
}

const DAY = 24 * 3600 * 1000;

export function makeCa(commonName: string, now = new Date()): TestCa {
  const keys = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const name = { commonName, organization: 'PhotoVerify tests' };
  const der = issueCertificate({
    subject: name,
    subjectPublicKey: keys.publicKey,
    selfSigningKey: keys.privateKey,
    profile: 'ca',
    notBefore: new Date(now.getTime() - 3650 * DAY),
    notAfter: new Date(now.getTime() + 3650 * DAY),
  });
  return { name, ...keys, der };
}

export function issueLeaf(
  ca: TestCa,
  commonName: string,
  profile: CertificateProfile,
  validity: { notBefore: Date; notAfter: Date },
): { privateKey: KeyObject; der: Uint8Array } {
  const keys = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const der = issueCertificate({
    subject: { commonName, organization: 'PhotoVerify tests' },
    subjectPublicKey: keys.publicKey,
    issuer: { name: ca.name, privateKey: ca.privateKey, publicKey: ca.publicKey },
    profile,
    ...validity,
  });
  return { privateKey: keys.privateKey, der };
}

export function signerFrom(ca: TestCa, validity: { notBefore: Date; notAfter: Date }, tsaUrl?: string): SignerConfig {
  const leaf = issueLeaf(ca, 'PhotoVerify test signer', 'signer', validity);
  return { privateKey: leaf.privateKey, chain: [leaf.der, ca.der], tsaUrl, development: false };
}

export const validNow = (now = Date.now()) => ({ notBefore: new Date(now - DAY), notAfter: new Date(now + 365 * DAY) });
