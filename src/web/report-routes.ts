import { z } from 'zod';
import { NotFoundError } from '../core/errors.js';
import { route, type RouteSpec } from '../core/http/route-spec.js';
import { ANCHOR_CERTIFICATE_PATH } from '../features/anchors/index.js';
import { ASSETS_PREFIX, auditBundleSchema, historyModel, historyPageHeaders, ownerAuditBundle, renderHistoryPage } from '../features/auditor/index.js';
import { openOwnFile, sharedFileKinds, type SharedFileKind } from '../features/sharing/index.js';
import { followProgress, getVerification, verificationIdParam } from '../features/verifications/index.js';
import { progressEventStream } from './progress-stream.js';
import type { AppContext } from './context.js';
import { newNonce } from './shell.js';
import { untrustedFileHeaders } from '../core/http/http-headers.js';

/**
 * What the verification page needs besides the page itself (report-view.ts), each for the
 * signed-in owner only (the session cookie, whose Path is /app, is the credential; the API's own
 * routes take header credentials, which a browser's <img> cannot send):
 *
 * - the report's images (photo, thumbnail, badge, heatmap, RAW rendition) through sharing's
 *   openOwnFile, the rules a share link's files follow;
 * - the progress an unfinished page follows: server-sent events from the event log (verifications'
 *   followProgress), and the status it polls where those cannot reach it (getVerification, the use
 *   case of GET /v1/verifications/{id});
 * - the history page (the auditor's renderHistoryPage of the owner's bundle, with the checks run
 *   in the browser) and the bundle it checks (ownerAuditBundle, as GET …/audit-bundle).
 */

const isFileKind = (kind: string): kind is SharedFileKind => (sharedFileKinds as readonly string[]).includes(kind);

const statusSchema = z.object({
  status: z.enum(['pending', 'queued', 'in_progress', 'completed', 'failed']),
  assurance_level: z.string().nullable(),
});

export function reportRoutes(ctx: AppContext): RouteSpec[] {
  const { deps, appPath, serviceName, errorPage, signedIn } = ctx;
  // The service's own paths under the public base URL's path (the app lives at `${base}/app`).
  const base = appPath.slice(0, -'/app'.length);

  return [
    route({
      method: 'get',
      path: '/app/verifications/{verification_id}/status',
      tag: 'webapp',
      summary: 'The web app’s status of one verification (JSON, for its page’s progress)',
      description: 'The status and assurance level GET /v1/verifications/{verification_id} gives (the same use case), for the signed-in owner: the verification page asks it every few seconds while the verification is not finished, and reloads when it changes.',
      auth: 'none',
      params: verificationIdParam,
      responses: {
        200: { description: 'The status', schema: statusSchema },
        303: { description: 'Not signed in: to /app/login' },
        404: { description: 'VERIFICATION_NOT_FOUND (also another account’s)' },
        422: { description: 'The id is not a UUID' },
      },
      handler: signedIn(async ({ params }, session) => {
        const found = (await getVerification(deps, session.principal, params.verification_id)) as unknown as z.infer<typeof statusSchema>;
        return { status: 200, headers: { 'Cache-Control': 'no-store' }, body: { status: found.status, assurance_level: found.assurance_level ?? null } };
      }),
    }),
    route({
      method: 'get',
      path: '/app/verifications/{verification_id}/progress',
      tag: 'webapp',
      summary: 'The web app’s live progress of one verification (server-sent events)',
      description:
        'A text/event-stream for the signed-in owner: an `event: progress` whose data is `{status, reached, assurance_level, label}` now and at each step the event log records (files received, analysing, graded, report ready), read from the read model the page shows; it ends after the last step (the page then reloads once) or after 10 minutes (the browser reconnects). A comment line every 15 seconds keeps proxies from closing it. Another account’s verification is 404 before anything is streamed.',
      auth: 'none',
      params: verificationIdParam,
      produces: 'text/event-stream',
      errorPage,
      responses: {
        200: { description: 'The event stream', schema: z.string() },
        303: { description: 'Not signed in: to /app/login' },
        404: { description: 'VERIFICATION_NOT_FOUND (also another account’s)' },
        422: { description: 'The id is not a UUID' },
      },
      handler: signedIn(async ({ params }, session) => {
        // The owner's rule first, so a refusal is an answer and not a stream that ends at once.
        await getVerification(deps, session.principal, params.verification_id);
        return progressEventStream((send, signal) => followProgress(deps, session.principal, params.verification_id, (progress) => send('progress', progress), signal), deps.log);
      }),
    }),
    route({
      method: 'get',
      path: '/app/verifications/{verification_id}/files/{kind}',
      tag: 'webapp',
      summary: 'An image of the web app’s verification page (the signed-in owner’s)',
      description: `One of ${sharedFileKinds.join(', ')}: the files the report page shows, with its rules (the badge of verified pairs only; the heatmap and RAW rendition of pairs). For the signed-in owner only; another account’s verification is 404.`,
      auth: 'none',
      params: verificationIdParam.extend({ kind: z.string().describe(sharedFileKinds.join(', ')) }),
      produces: 'image/*',
      errorPage,
      responses: {
        200: { description: 'The file' },
        303: { description: 'Not signed in: to /app/login' },
        404: { description: 'VERIFICATION_NOT_FOUND (also another account’s); NOT_FOUND: no such file for this verification' },
        422: { description: 'The id is not a UUID' },
      },
      handler: signedIn(async ({ params }, session) => {
        if (!isFileKind(params.kind)) throw new NotFoundError('NOT_FOUND', 'A verification page has no such file.', { suggestion: `Files: ${sharedFileKinds.join(', ')}.` });
        const { stream, contentType } = await openOwnFile(deps, session.principal, params.verification_id, params.kind);
        return {
          status: 200,
          headers: {
            ...untrustedFileHeaders(contentType),
            // The session is checked on every request: a removed user stops seeing the files at once.
            'Cache-Control': 'private, no-store',
            'X-Robots-Tag': 'noindex, nofollow',
          },
          stream,
        };
      }),
    }),
    route({
      method: 'get',
      path: '/app/verifications/{verification_id}/history',
      tag: 'webapp',
      summary: 'The history of one verification, checked in the browser (HTML, the signed-in owner’s)',
      description:
        'The auditor’s page (as at /shared/{token}/history) for the signed-in owner, from the owner’s audit bundle: the timeline of every recorded step with its hash linked to the one before, the anchors, and the offline verifier’s checks run in the browser (the compiled audit-verify.js of /assets/). Another account’s verification is 404.',
      auth: 'none',
      params: verificationIdParam,
      produces: 'text/html',
      errorPage,
      responses: {
        200: { description: 'The page', schema: z.string() },
        303: { description: 'Not signed in: to /app/login' },
        404: { description: 'VERIFICATION_NOT_FOUND (also another account’s)' },
        422: { description: 'The id is not a UUID' },
      },
      handler: signedIn(async ({ params }, session) => {
        const id = params.verification_id;
        const bundle = await ownerAuditBundle(deps, session.principal, id);
        const model = historyModel(bundle, {
          bundle: `${appPath}/verifications/${id}/history/bundle`,
          certificate: `${base}${ANCHOR_CERTIFICATE_PATH}`,
          verifier: `${base}${ASSETS_PREFIX}audit-verify.js`,
          back: { href: `${appPath}/verifications/${id}`, label: 'the verification' },
        });
        const nonce = newNonce();
        return { status: 200, headers: historyPageHeaders(nonce), html: renderHistoryPage({ model, serviceName, nonce }) };
      }),
    }),
    route({
      method: 'get',
      path: '/app/verifications/{verification_id}/history/bundle',
      tag: 'webapp',
      summary: 'The audit bundle of one verification (what its history page checks; the signed-in owner’s)',
      description: 'What GET /v1/verifications/{verification_id}/audit-bundle answers (the same use case), for the signed-in owner. Another account’s verification is 404.',
      auth: 'none',
      params: verificationIdParam,
      responses: {
        200: { description: 'The audit bundle', schema: auditBundleSchema },
        303: { description: 'Not signed in: to /app/login' },
        404: { description: 'VERIFICATION_NOT_FOUND (also another account’s)' },
        422: { description: 'The id is not a UUID' },
      },
      handler: signedIn(async ({ params }, session) => ({
        status: 200,
        headers: { 'Cache-Control': 'no-store', 'X-Robots-Tag': 'noindex, nofollow' },
        body: await ownerAuditBundle(deps, session.principal, params.verification_id),
      })),
    }),
  ];
}
