/**
 * Builds the small X.509 v3 certificates a C2PA signer needs (a P-256 CA, an end-entity
 * signing certificate, a timestamping certificate) with node:crypto alone, so that the
 * embedded development signer works on a machine that has Node and nothing else.
 * Profiles follow what c2pa-rs accepts (see LIBRARY-NOTES, C2PA section).
 */
import { createHash, randomBytes, sign, type KeyObject } from 'node:crypto';
import {
  bitString,
  boolean,
  explicit,
  implicitPrimitive,
  integer,
  octetString,
  oid,
  printableString,
  sequence,
  set,
  time,
  utf8String,
  type Der,
} from './der.js';

const ECDSA_WITH_SHA256 = '1.2.840.10045.4.3.2';
const EKU_EMAIL_PROTECTION = '1.3.6.1.5.5.7.3.4';
const EKU_TIME_STAMPING = '1.3.6.1.5.5.7.3.8';

export type CertificateProfile = 'ca' | 'signer' | 'tsa';

export interface DistinguishedName {
  commonName: string;
  organization?: string;
  country?: string;
}

export interface CertificateRequest {
  subject: DistinguishedName;
  subjectPublicKey: KeyObject;
  profile: CertificateProfile;
  notBefore: Date;
  notAfter: Date;
  /** Absent: self-signed with the subject's own key (only meaningful for a CA). */
  issuer?: { name: DistinguishedName; privateKey: KeyObject; publicKey: KeyObject };
  selfSigningKey?: KeyObject;
}

function encodeName(name: DistinguishedName): Der {
  const rdns: Der[] = [];
  if (name.country) rdns.push(set(sequence(oid('2.5.4.6'), printableString(name.country))));
  if (name.organization) rdns.push(set(sequence(oid('2.5.4.10'), utf8String(name.organization))));
  rdns.push(set(sequence(oid('2.5.4.3'), utf8String(name.commonName))));
  return sequence(...rdns);
}

/** RFC 5280 method 1: SHA-1 of the subjectPublicKey BIT STRING value (the EC point). */
export function keyIdentifier(publicKey: KeyObject): Uint8Array {
  const jwk = publicKey.export({ format: 'jwk' });
  const point = Buffer.concat([
    Uint8Array.of(4),
    Buffer.from(jwk.x ?? '', 'base64url'),
    Buffer.from(jwk.y ?? '', 'base64url'),
  ]);
  return createHash('sha1').update(point).digest();
}

function extension(id: string, critical: boolean, value: Der): Der {
  return critical ? sequence(oid(id), boolean(true), octetString(value)) : sequence(oid(id), octetString(value));
}

function extensionsFor(request: CertificateRequest): Der[] {
  const ski = keyIdentifier(request.subjectPublicKey);
  const akiSource = request.issuer?.publicKey ?? request.subjectPublicKey;
  const exts: Der[] = [];
  if (request.profile === 'ca') {
    exts.push(extension('2.5.29.19', true, sequence(boolean(true))));
    // keyCertSign (bit 5) + cRLSign (bit 6): 0b0000011x -> 0x06 with one unused bit.
    exts.push(extension('2.5.29.15', true, bitString(Uint8Array.of(0x06), 1)));
  } else {
    exts.push(extension('2.5.29.19', false, sequence()));
    // digitalSignature (bit 0) only.
    exts.push(extension('2.5.29.15', true, bitString(Uint8Array.of(0x80), 7)));
    const eku = request.profile === 'tsa' ? EKU_TIME_STAMPING : EKU_EMAIL_PROTECTION;
    // RFC 3161 2.3: a TSA certificate's EKU must be critical.
    exts.push(extension('2.5.29.37', request.profile === 'tsa', sequence(oid(eku))));
  }
  exts.push(extension('2.5.29.14', false, octetString(ski)));
  exts.push(extension('2.5.29.35', false, sequence(implicitPrimitive(0, keyIdentifier(akiSource)))));
  return exts;
}

/** Issues a certificate and returns its DER encoding. */
export function issueCertificate(request: CertificateRequest): Uint8Array {
  const signingKey = request.issuer?.privateKey ?? request.selfSigningKey;
  if (!signingKey) throw new TypeError('issueCertificate: issuer.privateKey or selfSigningKey is required');
  const algorithm = sequence(oid(ECDSA_WITH_SHA256));
  const spki = new Uint8Array(request.subjectPublicKey.export({ format: 'der', type: 'spki' }));
  // Positive 16-byte serial (top bit cleared so the INTEGER needs no sign byte).
  const serial = randomBytes(16);
  serial[0] = (serial[0] ?? 0) & 0x7f;
  const tbs = sequence(
    explicit(0, integer(2)),
    integer(serial),
    algorithm,
    encodeName(request.issuer?.name ?? request.subject),
    sequence(time(request.notBefore), time(request.notAfter)),
    encodeName(request.subject),
    spki,
    explicit(3, sequence(...extensionsFor(request))),
  );
  const signature = sign('sha256', tbs, { key: signingKey, dsaEncoding: 'der' });
  return sequence(tbs, algorithm, bitString(signature));
}

export function derToPem(der: Uint8Array): string {
  const b64 = Buffer.from(der).toString('base64').replace(/(.{64})/g, '$1\n');
  return `-----BEGIN CERTIFICATE-----\n${b64.replace(/\n$/, '')}\n-----END CERTIFICATE-----\n`;
}

/** Every certificate in a PEM bundle, as DER, in file order (core/audit/der-read.ts, the one PEM reader). */
export { pemToDerList } from '../core/audit/der-read.js';
