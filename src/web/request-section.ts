import { requestOrNull } from './list-items.js';
import { renderSubmissionOf } from './requests-pages.js';
import type { VerificationSection } from './verification-section.js';

/**
 * The verification page's request line (issue 39 item 3): a submission says which of the
 * account's requests it answered, linked to the request's page; other verifications show nothing.
 * The request is read through the requests feature's own rule (getRequest).
 */
export const requestSection: VerificationSection = {
  id: 'request',
  async render({ ctx, session, verification }) {
    const request = verification.request_id ? await requestOrNull(ctx.deps, session.principal, verification.request_id) : null;
    return request ? renderSubmissionOf(ctx.appPath, request) : null;
  },
};
