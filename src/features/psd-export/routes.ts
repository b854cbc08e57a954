import { z } from 'zod';
import type { AppDeps } from '../../core/module/deps.js';
import { queryInteger } from '../../core/http/query-integer.js';
import { redirect, route, type RouteSpec } from '../../core/http/route-spec.js';
import { verificationIdParam } from '../verifications/index.js';
import { downloadPsdExport, getPsdExport, MAX_WAIT_SECONDS, PSD_DOWNLOAD_URL_TTL_SECONDS, requestPsdExport } from './use-cases.js';
import { psdExportStatusSchema } from './view.js';
import { PSD_MAX_CANVAS_PIXELS, PSD_MAX_SIDE } from '../../../workflows/psd-export/policy.js';

export const waitQuery = z.strictObject({
  wait: queryInteger({ min: 0, max: MAX_WAIT_SECONDS, default: 0 }).describe(`Seconds to wait (0-${MAX_WAIT_SECONDS}) for the export to complete or fail before answering; the answer goes out as soon as it does.`),
});

const notFound = { description: 'PSD_EXPORT_NOT_FOUND: no export was requested, or the verification is missing or not yours' };

/** The layered PSD export of a verification (spec 4.1): request it, read its status, download it. */
export function psdExportRoutes(deps: AppDeps): RouteSpec[] {
  const path = '/v1/verifications/{verification_id}/psd-export';
  return [
    route({
      method: 'post',
      path,
      tag: 'psd-export',
      summary: 'Request the layered PSD export of your verification (Professional and Enterprise)',
      description:
        'A completed RAW+JPEG verification only. The PSD holds the photo, the pixel-registered RAW rendition and a hidden SSIM difference heatmap (blue = difference), for flicker comparison. Idempotent: while an export exists and has neither failed nor expired it is answered unchanged. A failed or expired export is made again free of charge; otherwise each export counts against the 50 included per month (Professional), then 0.50 EUR, metered on completion. Poll GET …/psd-export, or pass `wait`.',
      auth: 'any',
      params: verificationIdParam,
      query: waitQuery,
      responses: {
        202: { description: 'The export status', schema: psdExportStatusSchema },
        402: { description: 'BUDGET_EXCEEDED: the export would pass the account’s monthly budget cap' },
        403: { description: 'NOT_ENTITLED: the plan is below Professional' },
        404: { description: 'VERIFICATION_NOT_FOUND (also when not yours)' },
        409: { description: 'VALIDATION_ERROR: the verification is not completed, or image-only' },
        422: { description: `PSD_CANVAS_TOO_LARGE: the photo is more than ${PSD_MAX_SIDE.toLocaleString('en')} px a side (the PSD format's limit) or more than ${PSD_MAX_CANVAS_PIXELS.toLocaleString('en')} pixels (one export's memory); nothing is reserved or charged. Also a \`wait\` outside 0-20.` },
      },
      handler: async ({ params, query, call }) => ({
        status: 202,
        headers: { 'Cache-Control': 'no-store' },
        body: await requestPsdExport(deps, call, params.verification_id, query.wait),
      }),
    }),
    route({
      method: 'get',
      path,
      tag: 'psd-export',
      summary: 'Read the status of your verification’s PSD export',
      auth: 'any',
      params: verificationIdParam,
      responses: { 200: { description: 'The export status', schema: psdExportStatusSchema }, 404: notFound },
      handler: async ({ params, principal }) => ({ status: 200, headers: { 'Cache-Control': 'no-store' }, body: await getPsdExport(deps, principal, params.verification_id) }),
    }),
    route({
      method: 'get',
      path: `${path}/download`,
      tag: 'psd-export',
      summary: 'Download the PSD: a redirect to a signed URL, one of the export’s 5 downloads',
      description: `Each answered redirect counts one download (downloads_used + 1): a change, so a read-scope API key is refused (403 ACCESS_DENIED), as the MCP tool refuses it. The signed URL is valid ${PSD_DOWNLOAD_URL_TTL_SECONDS / 60} minutes. A HEAD request checks the same conditions and answers 204 without a URL and without counting (a read-scope key may send it).`,
      auth: 'any',
      params: verificationIdParam,
      responses: {
        302: { description: `Redirect to a signed URL of the file, valid ${PSD_DOWNLOAD_URL_TTL_SECONDS / 60} minutes` },
        204: { description: 'HEAD only: a download would be answered (nothing counted)' },
        403: { description: 'DOWNLOAD_LIMIT_REACHED: all 5 downloads used; ACCESS_DENIED: a read-scope API key (a download spends one of 5)' },
        404: notFound,
        409: { description: 'PSD_NOT_READY: the export is queued, in progress or failed' },
        410: { description: 'EXPIRED: 30 days have passed since the export completed; its file is deleted' },
      },
      handler: async ({ params, call, head }) => {
        const url = await downloadPsdExport(deps, call, params.verification_id, !head);
        return url === null ? { status: 204, headers: { 'Cache-Control': 'no-store' } } : redirect(url);
      },
    }),
  ];
}
