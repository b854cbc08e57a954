import { Readable } from 'node:stream';
import type { AppDeps } from '../../core/module/deps.js';
import { route, type Reply, type RouteSpec } from '../../core/http/route-spec.js';
import { INVITE_PARAM, SHARE_PATH_PREFIX, sharedPageErrors, shareLinkAccess } from '../sharing/index.js';
import { verificationIdParam } from '../verifications/index.js';
import { ownPdfReport, sharedPdfReport, type IssuedPdfReport } from './use-cases.js';

const DESCRIPTION =
  'A PDF of the report page: the assurance level and verdict with their reasons, the photo, the evidence images of a pair (SSIM heatmap, aligned RAW rendition), camera and capture data, reference, processing region, the analyses, file hashes, the anchor, the SHA-256 of the audit bundle, and the share page’s link and QR code when shared. Signed with the service’s signing certificate as a PDF signature (adbe.pkcs7.detached, a CMS over the byte range, ECDSA P-256) that PDF readers validate (e.g. `pdfsig report.pdf`). Each download is signed anew and its SHA-256 recorded in the verification’s history (PdfReportIssued, stream `pdfreport-<verification_id>`).';

/**
 * The PDF as a download: its own name, never cached (each is signed and recorded anew), and,
 * should a browser render it in place anyway, sandboxed like every file the service serves
 * (a PDF viewer can run script); no referrer and not indexed (a share link's URL is its credential).
 */
export function pdfReply({ pdf, fileName }: IssuedPdfReport): Reply {
  return {
    status: 200,
    headers: {
      'Content-Type': 'application/pdf',
      'Content-Disposition': `attachment; filename="${fileName}"`,
      'Content-Length': String(pdf.length),
      'Cache-Control': 'private, no-store',
      'X-Content-Type-Options': 'nosniff',
      'Content-Security-Policy': "default-src 'none'; sandbox",
      'Referrer-Policy': 'no-referrer',
      'X-Robots-Tag': 'noindex, nofollow',
    },
    stream: Readable.from([pdf]),
  };
}

const notReady = { description: 'PDF_REPORT_NOT_READY: the verification is not finished yet, or failed (it has no result to report)' };

/** The signed PDF report: the owner's through the API, and a share link's reader's at the share URL. */
export function pdfReportRoutes(deps: AppDeps): RouteSpec[] {
  return [
    route({
      method: 'get',
      path: '/v1/verifications/{verification_id}/report.pdf',
      tag: 'verifications',
      summary: 'Download the signed PDF report of your verification',
      description: DESCRIPTION,
      auth: 'any',
      params: verificationIdParam,
      produces: 'application/pdf',
      responses: {
        200: { description: 'The signed PDF report' },
        404: { description: 'VERIFICATION_NOT_FOUND (also when not yours)' },
        409: notReady,
      },
      handler: async ({ params, call }) => pdfReply(await ownPdfReport(deps, call, params.verification_id)),
    }),
    route({
      method: 'get',
      path: `${SHARE_PATH_PREFIX}{token}/report.pdf`,
      tag: 'sharing',
      summary: 'Download the signed PDF report of a shared verification',
      description: `${DESCRIPTION} Same access as the report page at the share URL (a restricted share with the \`invite\` parameter of an invitation's link); not counted as a view. The audit bundle it names is the share link's (personal fields as digests).`,
      ...shareLinkAccess,
      produces: 'application/pdf',
      errorPage: sharedPageErrors(deps),
      responses: {
        200: { description: 'The signed PDF report' },
        403: { description: 'ACCESS_DENIED: a restricted share, without a current invitation’s proof' },
        404: { description: 'NOT_SHARED: unknown or malformed link, sharing removed, or the verification deleted' },
        409: notReady,
      },
      handler: async ({ params, query, principal, call }) => pdfReply(await sharedPdfReport(deps, call, { token: params.token, viewer: principal, inviteProof: query[INVITE_PARAM] })),
    }),
  ];
}
