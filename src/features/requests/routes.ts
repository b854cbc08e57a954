import { z } from 'zod';
import type { AppDeps } from '../../core/module/deps.js';
import { queryInteger } from '../../core/http/query-integer.js';
import { route, type RouteSpec } from '../../core/http/route-spec.js';
import { multiLineText, oneLineText } from '../../core/text/text-schemas.js';
import { requestModes } from './events.js';
import { createRequest, deleteRequest, getRequest, listRequests, REQUEST_DEFAULTS, updateRequest } from './use-cases.js';
import { requestSchema } from './view.js';

/** Bounds of a request's fields (docs/decisions/, D-137). */
export const MAX_SUBJECT_LENGTH = 200;
export const MAX_INSTRUCTIONS_LENGTH = 5000;
export const MAX_SUBMISSIONS_LIMIT = 1000;

const requestIdParam = z.strictObject({ request_id: z.uuid() });

const settings = {
  subject: oneLineText().min(1).max(MAX_SUBJECT_LENGTH).describe(`What is asked for, shown to the provider (1-${MAX_SUBJECT_LENGTH} characters).`),
  instructions: multiLineText().max(MAX_INSTRUCTIONS_LENGTH).describe(`Instructions shown to the provider (at most ${MAX_INSTRUCTIONS_LENGTH} characters; tab and line breaks are the only control characters allowed, and no bidirectional formatting or invisible characters, as in a comment).`),
  expires_at: z.iso.datetime({ offset: true }).describe('The deadline (date-time with a time zone, in the future): after it the request is expired and accepts nothing.'),
  max_submissions: z.number().int().min(1).max(MAX_SUBMISSIONS_LIMIT).describe(`How many submissions the request accepts (1-${MAX_SUBMISSIONS_LIMIT}).`),
  share_with_provider: z.boolean().describe("Whether the provider sees the verification's report page after submitting."),
  mode: z.enum(requestModes).describe('existing_original: any original photo (with its RAW); capture: a photo taken with a capture attestation.'),
};

/** POST /v1/requests' body: also the web app's create form's (src/web/requests-routes.ts). */
export const requestCreateBody = z
  .strictObject({
    subject: settings.subject,
    expires_at: settings.expires_at,
    instructions: settings.instructions.optional().describe(`${settings.instructions.description} Default: empty.`),
    max_submissions: settings.max_submissions.optional().describe(`${settings.max_submissions.description} Default: ${REQUEST_DEFAULTS.max_submissions}.`),
    share_with_provider: settings.share_with_provider.optional().describe(`${settings.share_with_provider.description} Default: ${REQUEST_DEFAULTS.share_with_provider}.`),
    mode: settings.mode.optional().describe(`${settings.mode.description} Default: ${REQUEST_DEFAULTS.mode}.`),
  })
  .openapi('VerificationRequestCreate');

const updateBody = z
  .strictObject({
    status: z.literal('closed').optional().describe('"closed" closes the request: terminal, closed_at is set, nothing can change afterwards.'),
    subject: settings.subject.optional(),
    instructions: settings.instructions.optional(),
    expires_at: settings.expires_at.optional(),
    max_submissions: settings.max_submissions.optional().describe(`${settings.max_submissions.description} Not below submission_count.`),
    share_with_provider: settings.share_with_provider.optional(),
    // Not `mode` (spec 4.5): a provider may already be following the other mode's instructions.
  })
  .openapi('VerificationRequestUpdate');

/** GET /v1/requests' query: also the web app's requests list's. */
export const requestListQuery = z.strictObject({
  offset: queryInteger({ min: 0, default: 0 }),
  size: queryInteger({ min: 1, max: 100, default: 20 }),
  status: z.enum(['open', 'closed', 'expired']).optional().describe('open and expired are read from expires_at at the time of the call.'),
});

const listEnvelope = z
  .object({
    items: z.array(requestSchema),
    total: z.number().int(),
    offset: z.number().int(),
    size: z.number().int().describe('The number of items returned.'),
    total_pages: z.number().int().describe('Pages of the size asked for.'),
  })
  .openapi('VerificationRequestList');

const notFound = { description: 'REQUEST_NOT_FOUND: no such request in your account' };

/** Verification requests (spec 4.5): a requester asks a provider to submit an original through a link. */
export function requestRoutes(deps: AppDeps): RouteSpec[] {
  return [
    route({
      method: 'get',
      path: '/v1/requests',
      tag: 'requests',
      summary: "List your account's verification requests, newest first",
      auth: 'any',
      query: requestListQuery,
      responses: { 200: { description: 'A page of requests', schema: listEnvelope } },
      handler: async ({ query, principal }) => ({ status: 200, body: await listRequests(deps, principal, query) }),
    }),
    route({
      method: 'post',
      path: '/v1/requests',
      tag: 'requests',
      summary: 'Create a verification request: a link a provider uploads an original through',
      description:
        "The answer's url is the provider's upload page (no account needed); its token (256 random bits) is the credential in it. Submissions become verifications of your account, metered on your plan.",
      auth: 'any',
      body: requestCreateBody,
      responses: {
        201: { description: 'The request, with its token and url', schema: requestSchema },
        400: { description: 'ACCOUNT_NAME_REQUIRED: the account has no name (the provider is shown who asks by it)' },
        422: { description: 'VALIDATION_ERROR: an invalid field, or expires_at not in the future' },
      },
      handler: async ({ body, call }) => ({ status: 201, body: await createRequest(deps, call, body) }),
    }),
    route({
      method: 'get',
      path: '/v1/requests/{request_id}',
      tag: 'requests',
      summary: 'Read a verification request, with its token and url',
      auth: 'any',
      params: requestIdParam,
      responses: { 200: { description: 'The request', schema: requestSchema }, 404: notFound },
      handler: async ({ params, principal }) => ({ status: 200, body: await getRequest(deps, principal, params.request_id) }),
    }),
    route({
      method: 'patch',
      path: '/v1/requests/{request_id}',
      tag: 'requests',
      summary: 'Change or close a verification request',
      description: 'Every field is optional. {"status": "closed"} closes it for good (closed_at is set). A closed request cannot change; an expired one opens again with a later expires_at.',
      auth: 'any',
      params: requestIdParam,
      body: updateBody,
      responses: {
        200: { description: 'The request after the change', schema: requestSchema },
        404: notFound,
        422: { description: 'VALIDATION_ERROR: an invalid field, a change to a closed request, expires_at not in the future, max_submissions below submission_count' },
      },
      handler: async ({ params, body, call }) => ({ status: 200, body: await updateRequest(deps, call, params.request_id, body) }),
    }),
    route({
      method: 'delete',
      path: '/v1/requests/{request_id}',
      tag: 'requests',
      summary: 'Delete a verification request that has no submissions',
      auth: 'any',
      params: requestIdParam,
      responses: {
        204: { description: 'Deleted: its link stops working' },
        404: notFound,
        409: { description: 'REQUEST_HAS_SUBMISSIONS: close it instead' },
      },
      handler: async ({ params, call }) => {
        await deleteRequest(deps, call, params.request_id);
        return { status: 204 };
      },
    }),
  ];
}
