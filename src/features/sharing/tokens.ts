import crypto from 'node:crypto';
import { dataDirSecret } from '../../core/secrets.js';

/**
 * Share and invitation links (docs/decisions/, D-029). A link token is never stored: it is
 * an HMAC, under a key kept in DATA_DIR/secrets/share-link-key, of a random per-share (or
 * per-invitation) nonce that the events keep. The read model finds a share by the token's
 * SHA-256, so neither the log nor the read models hold a token, and nothing there can be
 * turned into one without the key. The same nonce always gives the same token, so the owner
 * can read the URL again and a re-sent invitation carries the same link.
 */

/** Path of the public report page; the token is its last segment. */
export const SHARE_PATH_PREFIX = '/shared/';
/** Query parameter of an invitee's personal link that proves the invited address. */
export const INVITE_PARAM = 'invite';

/** 24 bytes of HMAC-SHA256: 192 bits, 32 base64url characters. */
const TOKEN_BYTES = 24;
export const TOKEN_PATTERN = /^[A-Za-z0-9_-]{32}$/;

/** The link key of a data directory, generated on first use (0600) and kept across restarts. */
export const linkKey = (dataDir: string): Uint8Array => dataDirSecret(dataDir, 'share-link-key');

/** 128 random bits, the seed of one share's or one invitation's link. */
export const newNonce = (): string => crypto.randomBytes(16).toString('base64url');

export type LinkPurpose = 'share' | 'invite';

export function linkToken(key: Uint8Array, purpose: LinkPurpose, verificationId: string, nonce: string): string {
  return crypto.createHmac('sha256', key).update(`photoverify-${purpose}-link\n${verificationId}\n${nonce}`).digest().subarray(0, TOKEN_BYTES).toString('base64url');
}

/** What the read models look a token up by. */
export const tokenSha256 = (token: string): string => crypto.createHash('sha256').update(token).digest('hex');

export const shareUrl = (baseUrl: string, token: string): string => `${baseUrl}${SHARE_PATH_PREFIX}${token}`;
export const inviteUrl = (baseUrl: string, shareToken: string, inviteToken: string): string => `${shareUrl(baseUrl, shareToken)}?${INVITE_PARAM}=${inviteToken}`;

/**
 * A visitor key (whatever the page identifies a browser by) as the 128-bit keyed hash views are
 * counted by: the same visitor gives the same value, and the value says nothing about the visitor.
 */
export const visitorHash = (key: Uint8Array, visitorKey: string): string =>
  crypto.createHmac('sha256', key).update(`photoverify-share-visitor\n${visitorKey}`).digest('hex').slice(0, 32);

/** A request URL as it may be logged: a share link's token and invitation proof removed. */
export function withoutLinkTokens(url: string): string {
  const at = url.indexOf(SHARE_PATH_PREFIX);
  if (at === -1) return url;
  return `${url.slice(0, at + SHARE_PATH_PREFIX.length)}[redacted]`;
}

/**
 * A serialized request (pino's shape) as it may be logged: the URL, its parsed parts and a
 * Referer (the report page's own sub-requests send it) without share link tokens.
 */
export function withoutLinkTokensInRequest<R extends { url?: string; params?: unknown; query?: unknown; headers?: Record<string, unknown> }>(req: R): R {
  const referer = req.headers?.referer;
  const inUrl = req.url?.includes(SHARE_PATH_PREFIX) ?? false;
  const inReferer = typeof referer === 'string' && referer.includes(SHARE_PATH_PREFIX);
  if (!inUrl && !inReferer) return req;
  return {
    ...req,
    ...(inUrl ? { url: withoutLinkTokens(req.url!), params: undefined, query: undefined } : {}),
    ...(inReferer ? { headers: { ...req.headers, referer: withoutLinkTokens(referer) } } : {}),
  };
}
