import crypto from 'node:crypto';

/** Where a signed URL carries its signature (the one part that makes it a credential). */
const SIGNATURE_PARAM = 'sig';
const SIGNATURE_IN_URL = new RegExp(`([?&]${SIGNATURE_PARAM}=)[^&#]*`, 'g');

/** A URL (or path with query) as it may be logged: a pre-signed URL's signature replaced by "[redacted]". */
export const withoutUrlSignature = (url: string): string => url.replace(SIGNATURE_IN_URL, '$1[redacted]');

/** A parsed query as it may be logged (see withoutUrlSignature). */
export function withoutSignatureParam<Q>(query: Q): Q {
  if (!query || typeof query !== 'object' || !(SIGNATURE_PARAM in query)) return query;
  return { ...query, [SIGNATURE_PARAM]: '[redacted]' };
}

/**
 * Pre-signed URLs for blobs served by the app: `/blobs/<base64url key>?exp=<unix s>&ct=<type>&sig=<hmac>`.
 * The signature covers key, expiry and content type, so none can be changed.
 */
export class UrlSigner {
  constructor(
    private readonly secret: Uint8Array,
    private baseUrl: string,
  ) {}

  /** Links point at the address actually listened on when the port was chosen by the OS. */
  rebase(baseUrl: string): void {
    this.baseUrl = baseUrl;
  }

  /** The base of every link the service hands out (the listening address when the port was chosen by the OS). */
  get base(): string {
    return this.baseUrl;
  }

  /**
   * An HMAC of `text` for another kind of self-verifying token (e.g. an upload id). `purpose` is
   * part of the signed text, so a token of one kind never verifies as another or as a URL.
   */
  tag(purpose: string, text: string): string {
    return crypto.createHmac('sha256', this.secret).update(`${purpose}\n${text}`).digest('base64url');
  }

  sign(key: string, options: { now: Date; ttlSeconds: number; contentType: string }): string {
    const exp = Math.floor(options.now.getTime() / 1000) + options.ttlSeconds;
    const sig = this.mac(key, exp, options.contentType);
    const query = new URLSearchParams({ exp: String(exp), ct: options.contentType, [SIGNATURE_PARAM]: sig });
    // The key travels base64url-encoded: one path segment, whatever it contains.
    return `${this.baseUrl}/blobs/${Buffer.from(key).toString('base64url')}?${query.toString()}`;
  }

  /** 'ok', or why the URL is refused. */
  verify(key: string, query: { exp?: string; ct?: string; sig?: string }, now: Date): 'ok' | 'expired' | 'invalid' {
    const exp = Number(query.exp);
    if (!query.sig || !query.ct || !Number.isInteger(exp)) return 'invalid';
    const expected = Buffer.from(this.mac(key, exp, query.ct));
    const given = Buffer.from(query.sig);
    if (expected.length !== given.length || !crypto.timingSafeEqual(expected, given)) return 'invalid';
    return exp * 1000 < now.getTime() ? 'expired' : 'ok';
  }

  private mac(key: string, exp: number, contentType: string): string {
    return crypto.createHmac('sha256', this.secret).update(`${key}\n${exp}\n${contentType}`).digest('base64url');
  }
}
