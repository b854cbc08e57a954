import { Readable } from 'node:stream';
import { z } from 'zod';
import { publicBasePath } from '../../core/config.js';
import type { AppDeps } from '../../core/module/deps.js';
import { route, type RouteSpec } from '../../core/http/route-spec.js';
import { ANCHOR_CERTIFICATE_PATH } from '../anchors/index.js';
import { INVITE_PARAM, inviteProofSuffix, SHARE_PATH_PREFIX, sharedPageErrors, shareLinkAccess } from '../sharing/index.js';
import { verificationIdParam } from '../verifications/index.js';
import { verifierFile, verifierFiles } from './assets.js';
import { ownerAuditBundle, sharedAuditBundle } from './bundle.js';
import { AUDIT_BUNDLE_FORMAT } from '../../core/audit/audit-verify.js';
import { historyModel } from './history.js';
import { historyPageHeaders, renderHistoryPage } from './history-page.js';
import { newNonce } from '../../core/text/html.js';

/** Where the offline verifier's compiled files are served (the history pages load it from there). */
export const ASSETS_PREFIX = '/assets/';

export const bundleSchema = z
  .object({
    format: z.literal(AUDIT_BUNDLE_FORMAT),
    verification: z
      .record(z.string(), z.unknown())
      .describe(
        'What the bundle’s hashed events replay to through the read models’ own folds (docs/audit.md “Replay”): the verification’s status, result, assurance level, verdict and reasons, metadata, file digests, results, capture facts, retention times and `psd_export`; `photoverify audit verify` replays the events again and fails on any field that differs. Through a share link only id, name, short_code, status, mode, assurance level, verdict, file hashes and dates.',
      ),
    streams: z
      .record(z.string(), z.array(z.record(z.string(), z.unknown())))
      .describe('Audit events per stream with only the fields their hashes cover (no position, no recorded_at): the verification’s stream and, when it has one, its PSD export’s.'),
    anchors: z.array(z.record(z.string(), z.unknown())).describe('The verification’s anchored_in: each record names the streams and revisions it seals.'),
  })
  .openapi('AuditBundle');


export function auditorRoutes(deps: AppDeps): RouteSpec[] {
  const base = publicBasePath(deps.config);
  const serviceName = deps.config.SERVICE_NAME;
  const errorPage = sharedPageErrors(deps);

  return [
    route({
      method: 'get',
      path: '/v1/verifications/{verification_id}/audit-bundle',
      tag: 'audit',
      summary: 'Everything needed to check your verification’s history offline',
      description:
        'The Verification, its audit events (the verification’s stream and its PSD export’s) with their hashes, and its anchors. Check it with `photoverify audit verify --file bundle.json --trust certificate.pem` against the certificate published at GET /v1/anchors/certificate (docs/audit.md).',
      auth: 'any',
      params: verificationIdParam,
      responses: { 200: { description: 'The audit bundle', schema: bundleSchema }, 404: { description: 'VERIFICATION_NOT_FOUND (also when not yours)' } },
      handler: async ({ params, principal }) => ({ status: 200, headers: { 'Cache-Control': 'no-store' }, body: await ownerAuditBundle(deps, principal, params.verification_id) }),
    }),
    route({
      method: 'get',
      path: `${SHARE_PATH_PREFIX}{token}/history`,
      tag: 'audit',
      summary: 'The auditor’s page of a shared verification (HTML)',
      description:
        'The verification’s history as a timeline (what, when, who, where it was processed, each event’s hash linked to the one before) and its anchors, with the offline verifier’s checks run in the browser. Same access as the report page at the share URL; not counted as a view. Personal fields (the owner’s account, capture location and device, billing) are shown only as their digests.',
      ...shareLinkAccess,
      produces: 'text/html',
      errorPage,
      responses: {
        200: { description: 'The page', schema: z.string() },
        403: { description: 'ACCESS_DENIED: a restricted share, without a current invitation’s proof' },
        404: { description: 'NOT_SHARED: unknown or malformed link, sharing removed, or the verification deleted' },
      },
      handler: async ({ params, query, principal }) => {
        const bundle = await sharedAuditBundle(deps, { token: params.token, viewer: principal, inviteProof: query[INVITE_PARAM] });
        const proof = inviteProofSuffix(query[INVITE_PARAM]);
        const report = `${base}${SHARE_PATH_PREFIX}${encodeURIComponent(params.token)}`;
        const model = historyModel(bundle, {
          bundle: `${report}/history/bundle${proof}`,
          certificate: `${base}${ANCHOR_CERTIFICATE_PATH}`,
          verifier: `${base}${ASSETS_PREFIX}audit-verify.js`,
          back: { href: `${report}${proof}`, label: 'the report' },
        });
        const nonce = newNonce();
        return { status: 200, headers: historyPageHeaders(nonce), html: renderHistoryPage({ model, serviceName, nonce }) };
      },
    }),
    route({
      method: 'get',
      path: `${SHARE_PATH_PREFIX}{token}/history/bundle`,
      tag: 'audit',
      summary: 'The audit bundle of a shared verification (what its history page checks)',
      description: 'As GET /v1/verifications/{verification_id}/audit-bundle, through the share link’s access check, with the personal fields given only as their digests (the checks still pass).',
      ...shareLinkAccess,
      responses: {
        200: { description: 'The audit bundle', schema: bundleSchema },
        403: { description: 'ACCESS_DENIED: a restricted share, without a current invitation’s proof' },
        404: { description: 'NOT_SHARED: unknown or malformed link, sharing removed, or the verification deleted' },
      },
      handler: async ({ params, query, principal }) => ({
        status: 200,
        headers: { 'Cache-Control': 'no-store', 'X-Robots-Tag': 'noindex, nofollow', 'Referrer-Policy': 'no-referrer' },
        body: await sharedAuditBundle(deps, { token: params.token, viewer: principal, inviteProof: query[INVITE_PARAM] }),
      }),
    }),
    route({
      method: 'get',
      path: `${ASSETS_PREFIX}{file}`,
      tag: 'audit',
      summary: 'The offline verifier as a JavaScript module (what the auditor’s page runs)',
      description: `One of: ${verifierFiles.join(', ')}: src/core/audit/audit-verify.ts compiled, WebCrypto only; the same file the CLI runs.`,
      auth: 'none',
      params: z.object({ file: z.string() }),
      produces: 'text/javascript',
      responses: { 200: { description: 'The module' }, 404: { description: 'NOT_FOUND: no such file' } },
      handler: async ({ params }) => ({
        status: 200,
        headers: { 'Content-Type': 'text/javascript; charset=utf-8', 'Cache-Control': 'no-cache', 'X-Content-Type-Options': 'nosniff' },
        stream: Readable.from([verifierFile(params.file)]),
      }),
    }),
  ];
}
