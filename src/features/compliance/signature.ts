import { sign } from 'node:crypto';
import { canonicalJson } from '../../core/canonical-json.js';
import type { SignerConfig } from '../../provenance/signer-config.js';
import { derToPem } from '../../provenance/x509.js';

/** A signed JSON value, in the shape of the anchors' signatures (contract 2): anyone with the certificate checks it. */
export interface Es256Signature {
  algorithm: 'ES256';
  /** base64 of the IEEE P1363 r||s signature over the UTF-8 bytes of `signed`. */
  value: string;
  /** The canonical JSON (src/core/canonical-json.ts) of the signed value: exactly the bytes signed. */
  signed: string;
  /** End-entity certificate first (PEM). */
  certificate_chain: string[];
}

/** Signs `value` ES256 (ECDSA P-256, SHA-256) with the service's signing key, the key the anchors use. */
export function signEs256(value: unknown, signer: SignerConfig): Es256Signature {
  const details = signer.privateKey.asymmetricKeyDetails;
  if (signer.privateKey.asymmetricKeyType !== 'ec' || details?.namedCurve !== 'prime256v1') {
    throw new Error('Compliance summaries are signed ES256: C2PA_SIGNING_KEY must be an EC P-256 key.');
  }
  const signed = canonicalJson(value);
  return {
    algorithm: 'ES256',
    value: sign('sha256', Buffer.from(signed, 'utf8'), { key: signer.privateKey, dsaEncoding: 'ieee-p1363' }).toString('base64'),
    signed,
    certificate_chain: signer.chain.map(derToPem),
  };
}
