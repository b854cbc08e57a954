import { route, type RouteSpec } from '../core/http/route-spec.js';
import { ownPdfReport, pdfReply } from '../features/pdf-report/index.js';
import { verificationIdParam } from '../features/verifications/index.js';
import type { AppContext } from './context.js';
import { asSessionUser } from './session.js';

/**
 * The signed PDF report the verification page's Files section links (files-section.ts), for the
 * signed-in owner: the use case of GET /v1/verifications/{id}/report.pdf, with the session's
 * principal (the session cookie lives under /app; the API takes header credentials).
 */
export function pdfReportRoutes({ deps, errorPage, signedIn }: AppContext): RouteSpec[] {
  return [
    route({
      method: 'get',
      path: '/app/verifications/{verification_id}/report.pdf',
      tag: 'webapp',
      summary: 'The signed PDF report of one verification (the signed-in owner’s)',
      description: 'What GET /v1/verifications/{verification_id}/report.pdf answers (the same use case: signed, its digest recorded), for the signed-in owner. Another account’s verification is 404; an unfinished or failed one 409.',
      auth: 'none',
      params: verificationIdParam,
      produces: 'application/pdf',
      errorPage,
      responses: {
        200: { description: 'The signed PDF report' },
        303: { description: 'Not signed in: to /app/login' },
        404: { description: 'VERIFICATION_NOT_FOUND (also another account’s)' },
        409: { description: 'PDF_REPORT_NOT_READY: not finished yet, or failed' },
        422: { description: 'The id is not a UUID' },
      },
      handler: signedIn(async ({ params, call }, session) => pdfReply(await ownPdfReport(deps, asSessionUser(call, session), params.verification_id))),
    }),
  ];
}
