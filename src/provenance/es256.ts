import { sign } from 'node:crypto';
import { canonicalJson } from '../core/audit/canonical-json.js';
import { AppError } from '../core/errors.js';
import type { SignerConfig } from './signer-config.js';
import { derToPem } from './x509.js';

/**
 * The service's own signed statements (anchor batches' tree heads, compliance summaries): a JSON
 * value signed ES256 with the service's signing key, checkable by anyone with the published
 * certificate (docs/audit.md; src/core/audit/audit-verify.ts checks it with WebCrypto).
 */
export interface Es256Signature {
  algorithm: 'ES256';
  /** base64 of the IEEE P1363 r||s signature over the UTF-8 bytes of `signed`. */
  value: string;
  /** The canonical JSON (src/core/audit/canonical-json.ts) of the signed value: exactly the bytes signed. */
  signed: string;
  /** End-entity certificate first (PEM). */
  certificate_chain: string[];
}

/** The published certificate chain: the signer's end-entity certificate first, as PEM. */
export const certificateChainPem = (signer: SignerConfig): string[] => signer.chain.map(derToPem);

/** The setting that names the service's signing key (src/core/config.ts). */
export const SIGNING_KEY_SETTING = 'C2PA_SIGNING_KEY';

/**
 * ES256 is what the verifiers check: a key of another kind would sign statements nobody can
 * check, so it is refused. What is wrong with the signer's key for ES256, or null. The service
 * asks at start (a configured key is loaded then), so a wrong key stops the start naming the
 * setting instead of failing the first anchor batch.
 */
export function es256KeyProblem(signer: SignerConfig): string | null {
  const type = signer.privateKey.asymmetricKeyType ?? 'unknown';
  const curve = signer.privateKey.asymmetricKeyDetails?.namedCurve;
  if (type === 'ec' && curve === 'prime256v1') return null;
  return `must be an EC P-256 (prime256v1) key, for ES256; this key is ${type === 'ec' ? `EC ${curve ?? 'of an unknown curve'}` : type}.`;
}

/** Signs `value` ES256 (ECDSA P-256 with SHA-256) over its canonical JSON (with a key es256KeyProblem accepts only). */
export function signEs256(value: unknown, signer: SignerConfig, what: string): Es256Signature {
  const problem = es256KeyProblem(signer);
  if (problem) throw new AppError('INTERNAL_ERROR', `${what} are signed ES256: ${SIGNING_KEY_SETTING} ${problem}`);
  const signed = canonicalJson(value);
  return {
    algorithm: 'ES256',
    value: sign('sha256', Buffer.from(signed, 'utf8'), { key: signer.privateKey, dsaEncoding: 'ieee-p1363' }).toString('base64'),
    signed,
    certificate_chain: certificateChainPem(signer),
  };
}
