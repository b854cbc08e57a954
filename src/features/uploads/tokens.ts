import crypto from 'node:crypto';
import type { UrlSigner } from '../../core/signed-urls.js';

/**
 * An upload id is self-verifying: `up_<payload>.<hmac>`, the payload naming the blob (a random
 * hex nonce: blob keys are lower-case), the owner (an account id, or null for the keyless tier), the file name and the
 * expiry. The service keeps no table of pending uploads; the signature is the proof that it
 * issued the id, and the owner in it is who may verify from it.
 */
export interface UploadClaims {
  nonce: string;
  /** The account that created it; null: created by a keyless caller (usable by keyless calls only). */
  owner: string | null;
  filename: string;
  /** Unix seconds. */
  expires: number;
}

const PURPOSE = 'upload-id';
const FORM = /^up_([A-Za-z0-9_-]{1,1400})\.([A-Za-z0-9_-]{43})$/;

export function issueUploadId(signer: UrlSigner, claims: Omit<UploadClaims, 'nonce'>): { id: string; claims: UploadClaims } {
  const full = { ...claims, nonce: crypto.randomBytes(16).toString('hex') };
  const payload = Buffer.from(JSON.stringify([full.nonce, full.owner, full.filename, full.expires])).toString('base64url');
  return { id: `up_${payload}.${signer.tag(PURPOSE, payload)}`, claims: full };
}

/** The claims of a genuine upload id, or null for anything the service did not issue. */
export function readUploadId(signer: UrlSigner, id: string): UploadClaims | null {
  const match = FORM.exec(id);
  if (!match) return null;
  const [, payload, tag] = match as unknown as [string, string, string];
  const expected = Buffer.from(signer.tag(PURPOSE, payload));
  if (!crypto.timingSafeEqual(expected, Buffer.from(tag))) return null;
  const [nonce, owner, filename, expires] = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as [string, string | null, string, number];
  return { nonce, owner, filename, expires };
}

export const uploadBlobKey = (claims: UploadClaims) => `uploads/${claims.nonce}`;
