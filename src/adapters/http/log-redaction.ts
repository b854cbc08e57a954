import { withoutSignatureParam, withoutUrlSignature } from '../../core/signed-urls.js';
import { withoutLinkTokens, withoutLinkTokensInRequest } from '../../features/sharing/tokens.js';

/**
 * What pino-http may write about a request and its response. URLs that are credentials never
 * reach the log (DESIGN.md's robustness rules): share links (their token), pre-signed download
 * URLs (their signature) and pre-signed upload URLs (the upload id is the credential), whether
 * in the request line, its parsed parts or a redirect's Location header (D-085).
 */

/** create_upload's PUT target (src/features/uploads/routes.ts): the id in the path is the credential. */
const UPLOAD_PATH_PREFIX = '/uploads/';

const withoutUploadIds = (url: string): string => {
  const at = url.indexOf(UPLOAD_PATH_PREFIX);
  return at === -1 ? url : `${url.slice(0, at + UPLOAD_PATH_PREFIX.length)}[redacted]`;
};

/** Every credential-bearing part of a URL replaced by "[redacted]". */
export const redactUrl = (url: string): string => withoutLinkTokens(withoutUploadIds(withoutUrlSignature(url)));

type SerializedRequest = { url?: string; params?: unknown; query?: unknown; headers?: Record<string, unknown> };
type SerializedResponse = { headers?: Record<string, unknown> };

export function requestForLog<R extends SerializedRequest>(req: R): R {
  const url = req.url === undefined ? undefined : withoutUploadIds(withoutUrlSignature(req.url));
  const redacted = url === req.url ? req : { ...req, url, query: withoutSignatureParam(req.query), ...(url?.includes(UPLOAD_PATH_PREFIX) ? { params: undefined } : {}) };
  return withoutLinkTokensInRequest(redacted);
}

export function responseForLog<R extends SerializedResponse>(res: R): R {
  const location = res.headers?.location;
  if (typeof location !== 'string') return res;
  return { ...res, headers: { ...res.headers, location: redactUrl(location) } };
}
