import type { Readable } from 'node:stream';
import type { AppDeps } from '../../core/deps.js';
import { AccessDeniedError, NotFoundError } from '../../core/errors.js';

export interface SignedLink {
  /** The blob key, base64url-encoded (as it appears in the URL path). */
  encodedKey: string;
  exp: string;
  /** The content type the link was signed for. */
  ct: string;
  sig: string;
}

/**
 * Opens a blob behind a pre-signed URL (the file blob store's stand-in for a CDN). The link is
 * the only credential: tampered or expired ones are ACCESS_DENIED, vanished files NOT_FOUND.
 */
export async function openSignedBlob(deps: AppDeps, link: SignedLink): Promise<{ stream: Readable; contentType: string }> {
  const key = Buffer.from(link.encodedKey, 'base64url').toString('utf8');
  const verdict = deps.urlSigner.verify(key, { exp: link.exp, ct: link.ct, sig: link.sig }, deps.now());
  if (verdict !== 'ok') {
    throw new AccessDeniedError(verdict === 'expired' ? 'This link has expired.' : 'This link is not valid.', {
      suggestion: 'Ask the API for a new link (the redirect endpoints issue links valid for 1 hour).',
    });
  }
  if (!(await deps.blobs.exists(key))) throw new NotFoundError('NOT_FOUND', 'The file no longer exists.');
  return { stream: deps.blobs.stream(key), contentType: link.ct };
}
