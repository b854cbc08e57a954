import { sign } from 'node:crypto';
import { canonicalJson } from '../core/canonical-json.js';
import type { SignerConfig } from './signer-config.js';
import { derToPem } from './x509.js';

/**
 * The service's own signed statements (anchor batches' tree heads, compliance summaries): a JSON
 * value signed ES256 with the service's signing key, checkable by anyone with the published
 * certificate (docs/audit.md; src/core/audit-verify.ts checks it with WebCrypto).
 */
export interface Es256Signature {
  algorithm: 'ES256';
  /** base64 of the IEEE P1363 r||s signature over the UTF-8 bytes of `signed`. */
  value: string;
  /** The canonical JSON (src/core/canonical-json.ts) of the signed value: exactly the bytes signed. */
  signed: string;
  /** End-entity certificate first (PEM). */
  certificate_chain: string[];
}

/** The published certificate chain: the signer's end-entity certificate first, as PEM. */
export const certificateChainPem = (signer: SignerConfig): string[] => signer.chain.map(derToPem);

/**
 * Signs `value` ES256 (ECDSA P-256 with SHA-256) over its canonical JSON. ES256 is what the
 * verifiers check: a key of another kind would sign statements nobody can check, so it is refused.
 */
export function signEs256(value: unknown, signer: SignerConfig, what: string): Es256Signature {
  const details = signer.privateKey.asymmetricKeyDetails;
  if (signer.privateKey.asymmetricKeyType !== 'ec' || details?.namedCurve !== 'prime256v1') {
    throw new Error(`${what} are signed ES256: C2PA_SIGNING_KEY must be an EC P-256 key.`);
  }
  const signed = canonicalJson(value);
  return {
    algorithm: 'ES256',
    value: sign('sha256', Buffer.from(signed, 'utf8'), { key: signer.privateKey, dsaEncoding: 'ieee-p1363' }).toString('base64'),
    signed,
    certificate_chain: certificateChainPem(signer),
  };
}
