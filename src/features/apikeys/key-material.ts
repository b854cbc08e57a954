import crypto from 'node:crypto';

/**
 * Raw keys look like `pv_<prefix>_<secret>`: the prefix (public, unique) finds the row, the
 * SHA-256 of the whole key is what is stored. The secret has 256 bits, so a fast hash is the
 * right tool here (a password hash is for low-entropy secrets).
 */
const KEY_PATTERN = /^pv_([A-Za-z0-9]{12})_([A-Za-z0-9_-]{43})$/;

export interface GeneratedKey {
  raw: string;
  prefix: string;
  hash: string;
}

export function generateApiKey(): GeneratedKey {
  const prefix = crypto.randomBytes(9).toString('base64url').replace(/[-_]/g, 'x').slice(0, 12);
  const raw = `pv_${prefix}_${crypto.randomBytes(32).toString('base64url')}`;
  return { raw, prefix, hash: hashApiKey(raw) };
}

export function hashApiKey(raw: string): string {
  return crypto.createHash('sha256').update(raw).digest('hex');
}

export function parseApiKey(raw: string): { prefix: string } | null {
  const match = KEY_PATTERN.exec(raw);
  return match ? { prefix: match[1]! } : null;
}

/** What every raw key starts with: a bearer token that does is an API key, not a session token (authenticator.ts). */
export const API_KEY_PREFIX = 'pv_';
