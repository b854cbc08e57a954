import crypto from 'node:crypto';
import { z } from 'zod';
import { publicBasePath } from '../../core/config.js';
import type { AppDeps } from '../../core/module/deps.js';
import { route, type ErrorPageInput, type Reply, type RouteSpec } from '../../core/http/route-spec.js';
import { NotFoundError } from '../../core/errors.js';
import { newCall, type Call } from '../../core/principal.js';
import { RateLimiter } from '../../core/http/rate-limit.js';
import { attestCapture, issueChallenge } from '../attestations/index.js';
import { getShare, shareVerification } from '../sharing/index.js';
import { findVerification } from '../verifications/index.js';
import { foldStream } from '../../core/es/decider.js';
import { requestDecider, requestStream } from './decider.js';
import { unknownRequestToken } from './errors.js';
import { providerPageHeaders, renderProviderErrorPage, renderProviderPage, type ProviderPageModel, type SubmissionStatus } from './provider-page.js';
import { providerRequest, requesterPrincipal, requestOfToken, submitToRequest, type ProviderRequestView } from './submissions.js';
import { PROVIDER_PAGE_PREFIX } from './view.js';

/**
 * The provider's page at a request's url (issue 24, spec 2.7) and what it calls: the upload
 * (multipart, the fields of POST /v1/verifications), the submission's page and its status for
 * the page's script. Public routes: the token in the path is the credential (it is redacted
 * from the request log: log-redaction.ts). A submission is reached by its verification
 * id under the request's token: the id is random and only its submitter is sent to it, and it
 * must be a submission of that request (else the same 404 as an unknown link). With
 * `share_with_provider`, the submission's verification is shared by link on the requester's
 * behalf when it is received, and its page links the report once the verification completes.
 */

// Loose on purpose: a malformed token is refused by the lookup like an unknown one (the same 404 page).
const tokenParam = z.object({ request_token: z.string().describe('The request’s token, from its url') });
const submissionParams = tokenParam.extend({ verification_id: z.string() });
const UPLOAD_PARTS = { fileFields: ['image', 'raw'], textFields: ['attestation_id'] };
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

const newNonce = () => crypto.randomBytes(16).toString('base64');

/**
 * Capture calls (challenge, attestation) through one link, and from one client address, per hour:
 * each records on the requester's account, so a leaked link cannot flood it. A capture is two
 * calls; the limits leave room for several attempts per submission (uploads have their own).
 */
export const CAPTURE_CALLS_PER_TOKEN_PER_HOUR = 120;
export const CAPTURE_CALLS_PER_ADDRESS_PER_HOUR = 40;
const HOUR_MS = 60 * 60_000;

export function providerPageRoutes(deps: AppDeps): RouteSpec[] {
  // Links on the page are absolute paths under the public base URL's path (a proxy may mount the service below /).
  const pagePath = `${publicBasePath(deps.config)}${PROVIDER_PAGE_PREFIX}`;
  const serviceName = deps.config.SERVICE_NAME;
  const origin = new URL(deps.config.PUBLIC_BASE_URL).origin;
  const requestPath = (token: string) => `${pagePath}${encodeURIComponent(token)}`;
  const submissionPath = (token: string, verificationId: string) => `${requestPath(token)}/submissions/${verificationId}`;

  const errorPage =
    (backToRequest: boolean) =>
    (error: ErrorPageInput): Reply => {
      const nonce = newNonce();
      return { status: error.status, headers: providerPageHeaders(nonce), html: renderProviderErrorPage({ ...error, serviceName, backToRequest }, nonce) };
    };

  const model = (token: string, view: ProviderRequestView): ProviderPageModel => ({
    serviceName,
    requesterName: view.requester_name,
    subject: view.subject,
    instructions: view.instructions,
    deadline: view.expires_at,
    mode: view.mode,
    state: view.state,
    formAction: requestPath(token),
    capture: view.mode === 'capture' ? { challengeUrl: `${origin}${requestPath(token)}/capture/challenge`, attestationUrl: `${origin}${requestPath(token)}/capture/attestation` } : undefined,
    maxUploadBytes: deps.config.MAX_UPLOAD_BYTES,
  });

  /** A call as the request's creator (the submission's verification is the requester's: sharing it is theirs to do). */
  async function requesterCall(requestId: string, accountId: string, correlationId: string, clientAddress: string): Promise<Call> {
    const [created] = await deps.store.readStream(requestStream(requestId));
    if (!created) throw unknownRequestToken();
    return newCall(requesterPrincipal(created.metadata.actor, accountId), correlationId, clientAddress);
  }

  /** The requester's call for a capture through an open request's link (the challenge and attestation are the requester's account's, as its submission is). */
  async function captureCall(token: string, call: Call): Promise<Call> {
    const row = await requestOfToken(deps, token);
    await new RateLimiter(deps.knex, 'request-capture-address', CAPTURE_CALLS_PER_ADDRESS_PER_HOUR, HOUR_MS).take(call.clientAddress, 'capture calls from this address');
    await new RateLimiter(deps.knex, 'request-capture-token', CAPTURE_CALLS_PER_TOKEN_PER_HOUR, HOUR_MS).take(row.token_sha256, 'capture calls through this link');
    // The request's decider says whether it takes a capture now (its mode, open, before the deadline, a place left).
    const { state } = await foldStream(deps.store, requestStream(row.id), requestDecider);
    requestDecider.decide({ type: 'AcceptCapture', now: deps.now() }, state);
    return requesterCall(row.id, row.account_id, call.correlationId, call.clientAddress);
  }

  /** The submission under this request, or the unknown link's 404. */
  async function submissionOf(token: string, verificationId: string) {
    const view = await providerRequest(deps, token);
    const row = UUID.test(verificationId) ? await findVerification(deps.knex, verificationId) : undefined;
    const submitted = row ? await deps.knex('request_submissions').where({ verification_id: row.id, request_id: view.request_id }).first() : undefined;
    if (!row || !submitted) throw unknownRequestToken();
    return { view, row };
  }

  /** The shared report's URL of a completed submission, when the requester shares it with the provider (and has not removed the share since). */
  async function reportUrlOf(view: ProviderRequestView, row: { id: string; account_id: string; status: string }): Promise<string | null> {
    if (!view.share_with_provider || row.status !== 'completed') return null;
    const call = await requesterCall(view.request_id, row.account_id, 'provider-page', '');
    try {
      return (await getShare(deps, call.principal!, row.id)).share_url;
    } catch (error) {
      if (error instanceof NotFoundError) return null;
      throw error;
    }
  }

  return [
    route({
      method: 'get',
      path: `${PROVIDER_PAGE_PREFIX}{request_token}`,
      tag: 'requests',
      summary: "The provider's upload page of a verification request (HTML)",
      description:
        'The page a request’s url opens, without an account: who asks (the account’s name only), the subject, the instructions and the deadline, and while the request is open an upload form for the photo and its RAW (with the attestation id for `mode: capture`); a closed, expired or full request says so and accepts nothing. Errors are HTML pages.',
      auth: 'none',
      params: tokenParam,
      produces: 'text/html',
      errorPage: errorPage(false),
      responses: { 200: { description: 'The provider page', schema: z.string() }, 404: { description: 'REQUEST_NOT_FOUND: unknown or malformed link, or the request deleted' } },
      handler: async ({ params }) => {
        const nonce = newNonce();
        const view = await providerRequest(deps, params.request_token);
        return { status: 200, headers: providerPageHeaders(nonce), html: renderProviderPage(model(params.request_token, view), nonce) };
      },
    }),
    route({
      method: 'post',
      path: `${PROVIDER_PAGE_PREFIX}{request_token}`,
      tag: 'requests',
      summary: 'Submit a photo (and its RAW) through a verification request’s link',
      description:
        'The upload form of the provider page (multipart: `image`, optional `raw`, `attestation_id` required for `mode: capture` and refused otherwise; the same checks and limits as POST /v1/verifications). The submission becomes a verification of the requester’s account. Answers 303 to the submission’s page. Rate-limited per link and per client address. Errors are HTML pages.',
      auth: 'none',
      params: tokenParam,
      multipart: z.object({ image: z.string(), raw: z.string().optional(), attestation_id: z.string().optional() }),
      produces: 'text/html',
      errorPage: errorPage(true),
      responses: {
        303: { description: 'Received: the submission’s page' },
        400: { description: 'A file of the wrong format, empty or truncated; an invalid attestation' },
        404: { description: 'REQUEST_NOT_FOUND' },
        409: { description: 'The request is closed, expired or full (REQUEST_CLOSED, REQUEST_FULL), or asks for an existing original and an attestation_id was sent (REQUEST_NOT_CAPTURE)' },
        413: { description: 'A file larger than MAX_UPLOAD_BYTES' },
        422: { description: 'The files differ from the attestation, or a missing field' },
        429: { description: 'RATE_LIMIT_EXCEEDED: too many uploads through this link or from this address' },
      },
      handler: async ({ params, call, upload }) => {
        const submitted = await submitToRequest(deps, params.request_token, {
          clientAddress: call.clientAddress,
          correlationId: call.correlationId,
          receive: () => upload({ ...UPLOAD_PARTS, maxBytes: deps.config.MAX_UPLOAD_BYTES }),
        });
        if (submitted.share_with_provider) {
          // The submission is made; a share that fails leaves the provider the short result instead of the report (logged, not an error page).
          try {
            const view = await providerRequest(deps, params.request_token);
            const account = (await findVerification(deps.knex, submitted.verification_id))!.account_id;
            await shareVerification(deps, await requesterCall(view.request_id, account, call.correlationId, call.clientAddress), submitted.verification_id, 'anyone_with_link');
          } catch (error) {
            deps.log.error({ err: error, request: submitted.request_id, verification: submitted.verification_id }, 'a submission for share_with_provider could not be shared');
          }
        }
        return { status: 303, headers: { Location: submissionPath(params.request_token, submitted.verification_id), 'Cache-Control': 'no-store' } };
      },
    }),
    route({
      method: 'post',
      path: `${PROVIDER_PAGE_PREFIX}{request_token}/capture/challenge`,
      tag: 'requests',
      summary: 'A capture challenge through a verification request’s link (for a provider’s capture app)',
      description: 'As POST /capture/challenge, with the request’s token as the credential: the challenge is the requester’s account’s, so the attestation it leads to is redeemed by an upload through this link. Only for a request in `capture` mode, while it accepts submissions.',
      auth: 'none',
      params: tokenParam,
      responses: {
        201: { description: 'Challenge issued (nonce, expires_at), as POST /capture/challenge' },
        404: { description: 'REQUEST_NOT_FOUND' },
        409: { description: 'REQUEST_NOT_CAPTURE (the request’s mode is existing_original), REQUEST_CLOSED or REQUEST_FULL' },
        410: { description: 'REQUEST_EXPIRED' },
        429: { description: 'RATE_LIMIT_EXCEEDED: too many capture calls through this link or from this address' },
      },
      handler: async ({ params, call }) => ({ status: 201, headers: { 'Cache-Control': 'no-store' }, body: await issueChallenge(deps, await captureCall(params.request_token, call)) }),
    }),
    route({
      method: 'post',
      path: `${PROVIDER_PAGE_PREFIX}{request_token}/capture/attestation`,
      tag: 'requests',
      summary: 'A capture attestation through a verification request’s link (for a provider’s capture app)',
      description: 'As POST /capture/attestation, with the request’s token as the credential; the attestation_id it answers goes with the files to the upload form (POST /r/{request_token}).',
      auth: 'none',
      params: tokenParam,
      body: z.strictObject({ attestation: z.string().min(1).max(64 * 1024).describe('The compact JWS, as for POST /capture/attestation (docs/capture-attestation.md).') }),
      responses: {
        201: { description: 'Attestation accepted, as POST /capture/attestation' },
        400: { description: 'INVALID_ATTESTATION' },
        404: { description: 'REQUEST_NOT_FOUND' },
        409: { description: 'REQUEST_NOT_CAPTURE (the request’s mode is existing_original), REQUEST_CLOSED or REQUEST_FULL' },
        410: { description: 'REQUEST_EXPIRED' },
        429: { description: 'RATE_LIMIT_EXCEEDED: too many capture calls through this link or from this address' },
      },
      handler: async ({ params, body, call }) => ({ status: 201, headers: { 'Cache-Control': 'no-store' }, body: await attestCapture(deps, await captureCall(params.request_token, call), body.attestation) }),
    }),
    route({
      method: 'get',
      path: `${PROVIDER_PAGE_PREFIX}{request_token}/submissions/{verification_id}`,
      tag: 'requests',
      summary: 'A provider’s submission: its verification’s progress and result (HTML)',
      description: 'Where the upload leads: the verification’s progress, then its result in a few words (the report stays the requester’s). Errors are HTML pages.',
      auth: 'none',
      params: submissionParams,
      produces: 'text/html',
      errorPage: errorPage(false),
      responses: { 200: { description: 'The submission’s page', schema: z.string() }, 404: { description: 'REQUEST_NOT_FOUND: unknown link, or no such submission of this request' } },
      handler: async ({ params }) => {
        const { view, row } = await submissionOf(params.request_token, params.verification_id);
        const status = row.status as SubmissionStatus;
        const nonce = newNonce();
        const result = status === 'completed' && row.assurance_level ? { assuranceLevel: row.assurance_level, pair: row.verification_mode === 'raw_pair' } : null;
        const html = renderProviderPage(
          {
            ...model(params.request_token, view),
            submission: {
              status,
              statusUrl: `${submissionPath(params.request_token, row.id)}/status`,
              pageUrl: submissionPath(params.request_token, row.id),
              reportUrl: await reportUrlOf(view, row),
              result,
            },
          },
          nonce,
        );
        return { status: 200, headers: providerPageHeaders(nonce), html };
      },
    }),
    route({
      method: 'get',
      path: `${PROVIDER_PAGE_PREFIX}{request_token}/submissions/{verification_id}/status`,
      tag: 'requests',
      summary: 'A provider’s submission: its verification’s status (JSON, for the page’s script)',
      auth: 'none',
      params: submissionParams,
      responses: { 200: { description: 'The status', schema: z.object({ status: z.enum(['pending', 'queued', 'in_progress', 'completed', 'failed']) }) }, 404: { description: 'REQUEST_NOT_FOUND' } },
      handler: async ({ params }) => {
        const { row } = await submissionOf(params.request_token, params.verification_id);
        return { status: 200, headers: { 'Cache-Control': 'no-store' }, body: { status: row.status } };
      },
    }),
  ];
}
