import type { LogRedaction } from '../../core/http/log-redaction.js';
import { PROVIDER_PAGE_PREFIX } from './view.js';

/** The provider page's path (and what follows it: its uploads, its progress), wherever a URL has it. */
const PAGE = new RegExp(`^((?:[a-z][a-z0-9+.-]*://[^/]*)?${PROVIDER_PAGE_PREFIX.replace(/\//g, '\\/')})[^?#]*`, 'i');

/** A URL as the log may show it: a request link's token (its credential) replaced. */
export const withoutRequestTokens = (url: string): string => url.replace(PAGE, '$1[redacted]');

/** The provider page's URLs (request line, parsed parts, a Referer its own sub-requests send) without the request's token. */
export const requestTokenRedaction: LogRedaction = {
  url: withoutRequestTokens,
  request(req) {
    const referer = req.headers?.referer;
    const inUrl = typeof req.url === 'string' && PAGE.test(req.url);
    const inReferer = typeof referer === 'string' && PAGE.test(new URL(referer, 'http://x').pathname);
    if (!inUrl && !inReferer) return req;
    return {
      ...req,
      ...(inUrl ? { url: withoutRequestTokens(req.url!), params: undefined, query: undefined } : {}),
      ...(inReferer ? { headers: { ...req.headers, referer: withoutRequestTokens(referer) } } : {}),
    };
  },
};
