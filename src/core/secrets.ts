import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

/**
 * A secret from configuration, or one generated on first start and kept in the data
 * directory (mode 0600), so embedded mode needs no setup and survives restarts.
 */
export function configuredOrPersistedSecret(configured: string | undefined, dataDir: string, name: string): Uint8Array {
  if (configured) return new TextEncoder().encode(configured);
  const dir = path.join(dataDir, 'secrets');
  const file = path.join(dir, name);
  if (!fs.existsSync(file)) {
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    try {
      fs.writeFileSync(file, crypto.randomBytes(48).toString('base64url'), { mode: 0o600, flag: 'wx' });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  }
  return new TextEncoder().encode(fs.readFileSync(file, 'utf8').trim());
}

const persisted = new Map<string, Uint8Array>();

/** A generated secret of a data directory (configuredOrPersistedSecret without a configured value), read once per process. */
export function dataDirSecret(dataDir: string, name: string): Uint8Array {
  const id = path.join(dataDir, name);
  let secret = persisted.get(id);
  if (!secret) persisted.set(id, (secret = configuredOrPersistedSecret(undefined, dataDir, name)));
  return secret;
}

/** Whether two hex digests are equal, compared in constant time (token and key digests are always compared so). */
export function sameHash(a: string, b: string): boolean {
  const left = Buffer.from(a, 'hex');
  const right = Buffer.from(b, 'hex');
  return left.length === right.length && crypto.timingSafeEqual(left, right);
}
