import type { LogRedaction, SerializedRequest } from '../../core/http/log-redaction.js';
import { withoutSignatureParam, withoutUrlSignature } from '../../core/http/signed-urls.js';

/**
 * What pino-http may write about a request and its response. URLs that are credentials never
 * reach the log (DESIGN.md's robustness rules): pre-signed download URLs (their signature, the
 * core's) and whatever the modules declare as theirs (share links' tokens, pre-signed upload
 * ids: core/http/log-redaction.ts), whether in the request line, its parsed parts or a redirect's
 * Location header (D-085).
 */

type SerializedResponse = { headers?: Record<string, unknown> };

export function logSerializers(redactions: readonly LogRedaction[]) {
  /** Every credential-bearing part of a URL replaced by "[redacted]". */
  const redactUrl = (url: string): string => redactions.reduce((redacted, redaction) => redaction.url(redacted), withoutUrlSignature(url));

  const requestForLog = <R extends SerializedRequest>(req: R): R => {
    const url = req.url === undefined ? undefined : withoutUrlSignature(req.url);
    const signed = url === req.url ? req : { ...req, url, query: withoutSignatureParam(req.query) };
    return redactions.reduce((redacted, redaction) => redaction.request(redacted), signed);
  };

  const responseForLog = <R extends SerializedResponse>(res: R): R => {
    const location = res.headers?.location;
    if (typeof location !== 'string') return res;
    return { ...res, headers: { ...res.headers, location: redactUrl(location) } };
  };

  return { req: requestForLog, res: responseForLog };
}
