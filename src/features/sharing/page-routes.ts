import crypto from 'node:crypto';
import { z } from 'zod';
import { publicBasePath } from '../../core/config.js';
import type { AppDeps } from '../../core/module/deps.js';
import { NotFoundError } from '../../core/errors.js';
import { route, type ErrorPageInput, type Reply, type RouteSpec } from '../../core/http/route-spec.js';
import { pageHeaders, renderErrorPage, renderReportPage } from './report-page.js';
import { sharedFileKinds, type SharedFileKind } from './report.js';
import { INVITE_PARAM, SHARE_PATH_PREFIX } from './tokens.js';
import { openSharedFile, openSharedReport } from './use-cases.js';
import { untrustedFileHeaders } from '../../core/http/http-headers.js';
import { newNonce } from '../../core/text/html.js';

/**
 * The report page at the share URL and the files it shows (docs/decisions/, D-031 "The
 * report page"). Public routes: the share token (and, for a restricted share, the invitation proof in
 * `?invite=`) is the credential; a signed-in caller is recognised when credentials are sent.
 * Errors render as an HTML page with the catalogue's status: 404 for an unknown, removed or
 * malformed link (the same page whatever the reason), 403 for a restricted share without a
 * valid invitation proof.
 */

/** A first-party cookie naming the browser for view counting only (a visitor counts once per UTC day). */
const VISITOR_COOKIE = 'pv_visitor';
const VISITOR_VALUE = /^[A-Za-z0-9_-]{22}$/;

// The path and query of every page reached through a share link (the report page, its files, the
// auditor's history page). Loose on purpose: a malformed token or proof is refused by the access
// check like an unknown one (404 / 403 pages), and a link pasted with tracking parameters still opens.
const shareTokenParam = z.object({ token: z.string() });
const inviteProofQuery = z.object({ [INVITE_PARAM]: z.string().optional() });
/** What every route reached through a share link declares: no credential but the link itself. */
export const shareLinkAccess = { auth: 'none', params: shareTokenParam, query: inviteProofQuery } as const;
/** The invitation proof a share link's page passes on to the links it shows ('' without one). */
export const inviteProofSuffix = (inviteProof: string | undefined) => (inviteProof ? `?${INVITE_PARAM}=${encodeURIComponent(inviteProof)}` : '');
const isFileKind = (kind: string): kind is SharedFileKind => (sharedFileKinds as readonly string[]).includes(kind);

function visitorFrom(cookieHeader: string | undefined): string | undefined {
  for (const part of cookieHeader?.split(';') ?? []) {
    const [name, value] = part.trim().split('=');
    if (name === VISITOR_COOKIE && value && VISITOR_VALUE.test(value)) return value;
  }
  return undefined;
}

/** Seconds to the next UTC midnight: the cookie lives only as long as the day its view counts on. */
function secondsToMidnight(now: Date): number {
  const midnight = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1);
  return Math.max(1, Math.ceil((midnight - now.getTime()) / 1000));
}


/**
 * The error page of every page reached through a share link (the report page, the auditor's
 * history page): the report page's look, the catalogue's status, the same page whatever the reason.
 */
export function sharedPageErrors(deps: Pick<AppDeps, 'config'>): (error: ErrorPageInput) => Reply {
  const serviceName = deps.config.SERVICE_NAME;
  return (error) => {
    const nonce = newNonce();
    return { status: error.status, headers: pageHeaders(nonce), html: renderErrorPage({ ...error, serviceName, nonce }) };
  };
}

export function reportPageRoutes(deps: AppDeps): RouteSpec[] {
  const sharedPath = `${publicBasePath(deps.config)}${SHARE_PATH_PREFIX}`;
  const secure = deps.config.PUBLIC_BASE_URL.startsWith('https:');
  const serviceName = deps.config.SERVICE_NAME;
  const errorPage = sharedPageErrors(deps);

  return [
    route({
      method: 'get',
      path: `${SHARE_PATH_PREFIX}{token}`,
      tag: 'sharing',
      summary: 'The shared report page (HTML)',
      description:
        'The page a share URL opens, readable without an account: the image, assurance level and verdict in plain words, each analysis, the SSIM heatmap and a photo/RAW flicker comparison (pairs) or the Content Credentials summary (image only), the badge when verified, file hashes, verification date and processing region. No account information or internal ids. A restricted share opens with the `invite` parameter of an invitation e-mail’s personal link. Counts one view per visitor and UTC day (a first-party cookie that expires at UTC midnight); a HEAD request answers the same status and headers without counting a view or setting the cookie. Errors are HTML pages.',
      ...shareLinkAccess,
      produces: 'text/html',
      errorPage,
      responses: {
        200: { description: 'The report page', schema: z.string() },
        403: { description: 'ACCESS_DENIED: a restricted share, without a current invitation’s proof (the page says how to get in)' },
        404: { description: 'NOT_SHARED: unknown or malformed link, sharing removed, or the verification deleted (one page for all)' },
      },
      handler: async ({ params, query, principal, call, header, head }) => {
        const known = visitorFrom(header('cookie'));
        const visitor = known ?? crypto.randomBytes(16).toString('base64url');
        const inviteProof = query[INVITE_PARAM];
        // A HEAD (a link previewer, a monitor) gets the page's status and headers but is not a visit.
        const report = await openSharedReport(deps, { token: params.token, viewer: principal, inviteProof, visitorKey: head ? null : visitor, correlationId: call.correlationId });
        const proof = inviteProofSuffix(inviteProof);
        const fileUrl = (kind: SharedFileKind) => `${sharedPath}${encodeURIComponent(params.token)}/files/${kind}${proof}`;
        const nonce = newNonce();
        const headers: Record<string, string> = pageHeaders(nonce);
        if (!known && !head) {
          headers['Set-Cookie'] = `${VISITOR_COOKIE}=${visitor}; Path=${sharedPath}; Max-Age=${secondsToMidnight(deps.now())}; HttpOnly; SameSite=Lax${secure ? '; Secure' : ''}`;
        }
        return { status: 200, headers, html: renderReportPage({ report, serviceName, fileUrl, nonce, historyUrl: `${sharedPath}${encodeURIComponent(params.token)}/history${proof}`, pdfUrl: `${sharedPath}${encodeURIComponent(params.token)}/report.pdf${proof}` }) };
      },
    }),
    route({
      method: 'get',
      path: `${SHARE_PATH_PREFIX}{token}/files/{kind}`,
      tag: 'sharing',
      summary: 'A file shown on the shared report page',
      description:
        '`image` (the signed image of a verified pair, else the upload), `thumbnail`, `badge` (verified pairs), `heatmap` (SSIM difference, pairs), `raw_reference` (the RAW rendered and aligned to the image, pairs). Behind the same access check as the page, checked on every request; not counted as a view.',
      auth: 'none',
      params: shareTokenParam.extend({ kind: z.string().describe(sharedFileKinds.join(', ')) }),
      query: inviteProofQuery,
      produces: 'image/*',
      errorPage,
      responses: {
        200: { description: 'The file' },
        403: { description: 'ACCESS_DENIED: a restricted share without a current invitation’s proof' },
        404: { description: 'NOT_SHARED (unknown link); NOT_FOUND: the report has no such file' },
      },
      handler: async ({ params, query, principal }) => {
        if (!isFileKind(params.kind)) throw new NotFoundError('NOT_FOUND', 'A shared report has no such file.', { suggestion: `Files: ${sharedFileKinds.join(', ')}.` });
        const { stream, contentType } = await openSharedFile(deps, { token: params.token, viewer: principal, inviteProof: query[INVITE_PARAM], kind: params.kind });
        return {
          status: 200,
          headers: {
            ...untrustedFileHeaders(contentType),
            // Access is checked on every request: a removed share or invitation stops the files at once.
            'Cache-Control': 'private, no-store',
            'X-Robots-Tag': 'noindex, nofollow',
            'Referrer-Policy': 'no-referrer',
          },
          stream,
        };
      },
    }),
  ];
}
