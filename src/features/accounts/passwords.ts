import crypto from 'node:crypto';
import { promisify } from 'node:util';

const scrypt = promisify(crypto.scrypt) as (password: string, salt: Buffer, keylen: number, options: crypto.ScryptOptions) => Promise<Buffer>;
const KEY_LENGTH = 32;

/**
 * scrypt (memory-hard) with its parameters stored in the hash, so raising the cost later
 * keeps old hashes verifiable: `scrypt$<log2N>$<r>$<p>$<salt b64>$<hash b64>`.
 */
export async function hashPassword(password: string, log2N: number): Promise<string> {
  const salt = crypto.randomBytes(16);
  const params = { N: 2 ** log2N, r: 8, p: 1 };
  const hash = await scrypt(password.normalize('NFKC'), salt, KEY_LENGTH, { ...params, maxmem: 256 * params.N * params.r + 1024 * 1024 });
  return ['scrypt', log2N, params.r, params.p, salt.toString('base64'), hash.toString('base64')].join('$');
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, log2N, r, p, salt, expected] = stored.split('$');
  if (scheme !== 'scrypt' || !salt || !expected) return false;
  const N = 2 ** Number(log2N);
  const actual = await scrypt(password.normalize('NFKC'), Buffer.from(salt, 'base64'), KEY_LENGTH, {
    N,
    r: Number(r),
    p: Number(p),
    maxmem: 256 * N * Number(r) + 1024 * 1024,
  });
  const wanted = Buffer.from(expected, 'base64');
  return wanted.length === actual.length && crypto.timingSafeEqual(wanted, actual);
}

/** A hash of a random password at a given cost: verifying against it costs what a real check costs. */
export function decoyHash(log2N: number): Promise<string> {
  return hashPassword(crypto.randomBytes(16).toString('hex'), log2N);
}
