import type { Readable } from 'node:stream';
import type { AppDeps } from '../../core/module/deps.js';
import { AccessDeniedError, NotFoundError } from '../../core/errors.js';

export interface SignedLink {
  /** The blob key, base64url-encoded (as it appears in the URL path). */
  encodedKey: string;
  exp: string;
  /** The content type the link was signed for. */
  ct: string;
  sig: string;
}

/** The longest an S3 pre-signed URL handed out by a redirect lives. */
const STORE_URL_TTL_SECONDS = 3600;

/**
 * Opens a blob behind a pre-signed URL (the file blob store's stand-in for a CDN). The link is
 * the only credential: tampered or expired ones are ACCESS_DENIED, vanished files NOT_FOUND.
 * With S3_DOWNLOADS=redirect (and a store that has URLs of its own) the answer is the store's
 * pre-signed URL instead of the bytes, expiring no later than the link itself.
 */
export async function openSignedBlob(deps: AppDeps, link: SignedLink): Promise<{ stream: Readable; contentType: string } | { redirect: string }> {
  const key = Buffer.from(link.encodedKey, 'base64url').toString('utf8');
  const verdict = deps.urlSigner.verify(key, { exp: link.exp, ct: link.ct, sig: link.sig }, deps.now());
  if (verdict !== 'ok') {
    throw new AccessDeniedError(verdict === 'expired' ? 'This link has expired.' : 'This link is not valid.', {
      suggestion: 'Ask the API for a new link (the redirect endpoints issue links valid for 1 hour).',
    });
  }
  if (!(await deps.blobs.exists(key))) throw new NotFoundError('NOT_FOUND', 'The file no longer exists.');
  if (deps.config.S3_DOWNLOADS === 'redirect' && deps.blobs.presignedUrl) {
    const now = deps.now();
    const ttlSeconds = Math.max(1, Math.min(STORE_URL_TTL_SECONDS, Number(link.exp) - Math.floor(now.getTime() / 1000)));
    return { redirect: await deps.blobs.presignedUrl(key, { now, ttlSeconds, contentType: link.ct }) };
  }
  return { stream: deps.blobs.stream(key), contentType: link.ct };
}
