import type { LogRedaction } from '../../core/http/log-redaction.js';

/** create_upload's PUT target (routes.ts): the upload id in the path is the credential. */
const UPLOAD_PATH_PREFIX = '/uploads/';

const withoutUploadIds = (url: string): string => {
  const at = url.indexOf(UPLOAD_PATH_PREFIX);
  return at === -1 ? url : `${url.slice(0, at + UPLOAD_PATH_PREFIX.length)}[redacted]`;
};

/** Pre-signed upload URLs as the request log may show them: the id and the parsed path parameters gone. */
export const uploadIdRedaction: LogRedaction = {
  url: withoutUploadIds,
  request: (req) => (req.url?.includes(UPLOAD_PATH_PREFIX) ? { ...req, url: withoutUploadIds(req.url), params: undefined } : req),
};
