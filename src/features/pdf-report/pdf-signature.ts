import { createHash, sign } from 'node:crypto';
import { SignPdf } from '@signpdf/signpdf';
import { Signer } from '@signpdf/utils';
import { explicit, integer, octetString, oid, readChildren, readElement, sequence, set, tlv, type Der } from '../../provenance/der.js';
import type { SignerConfig } from '../../provenance/signer-config.js';

/**
 * The PDF signature (ISO 32000 `adbe.pkcs7.detached`, PAdES baseline B-B's CMS): a detached CMS
 * SignedData over the PDF's byte range, made with the service's signing key and chain (the
 * signer of anchors and Content Credentials: C2PA_SIGNING_KEY/CHAIN, or the development CA).
 * Built with the repository's DER encoder (provenance/der.ts) because @signpdf's own signer
 * (node-forge, a PKCS#12) takes RSA keys only, and the service's key is P-256. Signed
 * attributes: content type, message digest and ESS signing-certificate-v2 (PAdES requires the
 * last, and the signing time stays the PDF's /M, not a CMS attribute).
 */

const OID = {
  data: '1.2.840.113549.1.7.1',
  signedData: '1.2.840.113549.1.7.2',
  contentType: '1.2.840.113549.1.9.3',
  messageDigest: '1.2.840.113549.1.9.4',
  signingCertificateV2: '1.2.840.113549.1.9.16.2.47',
  sha256: '2.16.840.1.101.3.4.2.1',
  ecdsaWithSha256: '1.2.840.10045.4.3.2',
};

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest();

/** The end-entity certificate's issuer and serial number (TBSCertificate: [0] version, serial, signature, issuer, ...). */
function issuerAndSerialNumber(certificate: Uint8Array): Der {
  const [tbs] = readChildren(readElement(certificate));
  const fields = readChildren(tbs!);
  const first = fields[0]!.tag === 0xa0 ? 1 : 0;
  return sequence(fields[first + 2]!.encoded, fields[first]!.encoded);
}

const attribute = (type: string, value: Der): Der => sequence(oid(type), set(value));

/** A DER SET OF: its elements in the order of their encodings (X.690 11.6), as the signature covers them. */
const sortedSetContent = (items: Der[]): Der[] => [...items].sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));

/** The detached CMS SignedData of `content` (the PDF without its signature's contents). */
export function cmsDetachedSignature(content: Uint8Array, signer: SignerConfig): Buffer {
  const [endEntity] = signer.chain;
  if (!endEntity) throw new Error('The signing chain has no certificate.');
  const attributes = sortedSetContent([
    attribute(OID.contentType, oid(OID.data)),
    attribute(OID.messageDigest, octetString(sha256(content))),
    // SigningCertificateV2 { certs: [ESSCertIDv2 { certHash }] } (hash algorithm: the default, SHA-256).
    attribute(OID.signingCertificateV2, sequence(sequence(sequence(octetString(sha256(endEntity)))))),
  ]);
  // The signature covers the attributes as a SET (tag 0x31), though they are sent as [0] IMPLICIT.
  const signature = sign('sha256', tlv(0x31, ...attributes), signer.privateKey);
  const signerInfo = sequence(integer(1), issuerAndSerialNumber(endEntity), sequence(oid(OID.sha256)), tlv(0xa0, ...attributes), sequence(oid(OID.ecdsaWithSha256)), octetString(signature));
  const signedData = sequence(integer(1), set(sequence(oid(OID.sha256))), sequence(oid(OID.data)), tlv(0xa0, ...signer.chain), set(signerInfo));
  return Buffer.from(sequence(oid(OID.signedData), explicit(0, signedData)));
}

class ServiceSigner extends Signer {
  constructor(private readonly config: SignerConfig) {
    super();
  }

  override async sign(pdf: Buffer): Promise<Buffer> {
    return cmsDetachedSignature(pdf, this.config);
  }
}

/** Fills the signature placeholder of `pdf` (its /ByteRange and /Contents) with the service's signature. */
export async function signPdf(pdf: Uint8Array, signer: SignerConfig, signingTime: Date): Promise<Buffer> {
  return new SignPdf().sign(Buffer.from(pdf), new ServiceSigner(signer), signingTime);
}
