import crypto from 'node:crypto';
import type { UrlSigner } from '../../core/http/signed-urls.js';

/**
 * An upload id is self-verifying and opaque: `up_<sealed>.<hmac>`. The service keeps no table of
 * pending uploads, so the id carries its claims: the blob (a random nonce: blob keys are lower-case
 * hex), the owner (an account id, or null for the keyless tier), the file name and the expiry.
 * They are encrypted (AES-256-CTR under a key derived from the URL-signing secret, a fresh random
 * IV per id) and the ciphertext is signed (HMAC-SHA256, encrypt-then-MAC): whoever holds an id
 * learns nothing of its account or file name, and an altered or invented id is refused before
 * anything is decrypted (D-090). The signature is the proof that the service issued it; the
 * owner in it is who may verify from it.
 */
export interface UploadClaims {
  nonce: string;
  /** The account that created it; null: created by a keyless caller (usable by keyless calls only). */
  owner: string | null;
  filename: string;
  /** Unix seconds. */
  expires: number;
}

/** Signs the sealed form; ids of the earlier readable form (signed as `upload-id`) no longer verify. */
const PURPOSE = 'sealed-upload-id';
const FORM = /^up_([A-Za-z0-9_-]{1,1400})\.([A-Za-z0-9_-]{43})$/;
const CIPHER = 'aes-256-ctr';
const IV_BYTES = 16;
const NONCE_BYTES = 16;
const UUID_HEX = /^[0-9a-f]{32}$/;

/** The encryption key: an HMAC of the signing secret under its own purpose, so it never equals a signature the service hands out. */
const sealingKey = (signer: UrlSigner): Buffer => Buffer.from(signer.tag('upload-id-key', CIPHER), 'base64url');

/** nonce (16 bytes) | owner flag (1) [+ account id (16)] | expiry (uint32, unix s) | file name (UTF-8). */
function encodeClaims(claims: UploadClaims): Buffer {
  const owner = claims.owner === null ? Buffer.of(0) : Buffer.concat([Buffer.of(1), Buffer.from(claims.owner.replaceAll('-', ''), 'hex')]);
  const expires = Buffer.alloc(4);
  expires.writeUInt32BE(claims.expires);
  return Buffer.concat([Buffer.from(claims.nonce, 'hex'), owner, expires, Buffer.from(claims.filename, 'utf8')]);
}

function decodeClaims(plain: Buffer): UploadClaims | null {
  const hasOwner = plain[NONCE_BYTES];
  const at = NONCE_BYTES + 1 + (hasOwner === 1 ? 16 : 0);
  if ((hasOwner !== 0 && hasOwner !== 1) || plain.length < at + 4) return null;
  const hex = plain.subarray(NONCE_BYTES + 1, NONCE_BYTES + 17).toString('hex');
  const owner = hasOwner === 1 ? `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}` : null;
  return { nonce: plain.subarray(0, NONCE_BYTES).toString('hex'), owner, expires: plain.readUInt32BE(at), filename: plain.subarray(at + 4).toString('utf8') };
}

export function issueUploadId(signer: UrlSigner, claims: Omit<UploadClaims, 'nonce'>): { id: string; claims: UploadClaims } {
  if (claims.owner !== null && !UUID_HEX.test(claims.owner.replaceAll('-', '').toLowerCase())) throw new Error(`upload owner ${claims.owner} is not a uuid`);
  const full = { ...claims, owner: claims.owner?.toLowerCase() ?? null, nonce: crypto.randomBytes(NONCE_BYTES).toString('hex') };
  const iv = crypto.randomBytes(IV_BYTES);
  const cipher = crypto.createCipheriv(CIPHER, sealingKey(signer), iv);
  const sealed = Buffer.concat([iv, cipher.update(encodeClaims(full)), cipher.final()]).toString('base64url');
  return { id: `up_${sealed}.${signer.tag(PURPOSE, sealed)}`, claims: full };
}

/** The claims of a genuine upload id, or null for anything the service did not issue. */
export function readUploadId(signer: UrlSigner, id: string): UploadClaims | null {
  const match = FORM.exec(id);
  if (!match) return null;
  const [, sealed, tag] = match as unknown as [string, string, string];
  const expected = Buffer.from(signer.tag(PURPOSE, sealed));
  const given = Buffer.from(tag);
  // timingSafeEqual throws on a length mismatch: checked here, not left to the pattern above.
  if (given.length !== expected.length || !crypto.timingSafeEqual(expected, given)) return null;
  const bytes = Buffer.from(sealed, 'base64url');
  if (bytes.length < IV_BYTES + NONCE_BYTES + 5) return null;
  const decipher = crypto.createDecipheriv(CIPHER, sealingKey(signer), bytes.subarray(0, IV_BYTES));
  return decodeClaims(Buffer.concat([decipher.update(bytes.subarray(IV_BYTES)), decipher.final()]));
}

export const uploadBlobKey = (claims: UploadClaims) => `uploads/${claims.nonce}`;
