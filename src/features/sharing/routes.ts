import { z } from 'zod';
import type { AppDeps } from '../../core/module/deps.js';
import { route, type RouteSpec } from '../../core/http/route-spec.js';
import { confirmationSchema } from '../../core/http/schemas.js';
import { verificationIdParam } from '../verifications/index.js';
import { accessTypes } from './events.js';
import { getShare, inviteToShare, revokeInvite, shareVerification, unshareVerification, viewAnalytics } from './use-cases.js';

export const shareBody = z.strictObject({ access_type: z.enum(accessTypes) }).openapi('ShareRequest');

export const shareSchema = z
  .object({
    verification_id: z.uuid(),
    access_type: z.enum(accessTypes),
    share_url: z.string().describe('Public URL of the shared report. Carries an unguessable token; kept when the access type changes, invalid once the share is removed.'),
    invited_emails: z.array(z.string()).describe('Addresses invited to the share (they have access while it is restricted), oldest invitation first.'),
  })
  .openapi('Share');

const emailBody = z.strictObject({ email: z.email().max(254) });

const analyticsSchema = z
  .object({
    total_views: z.number().int().describe('Views in the range: each visitor counts once per UTC day; the owner account’s own views are not counted.'),
    daily_views: z.array(z.object({ date: z.string().describe('YYYY-MM-DD (UTC)'), count: z.number().int() })).describe('Every day of the range, oldest first, zero included.'),
  })
  .openapi('ViewAnalytics');

const ownerErrors = {
  403: { description: 'ACCESS_DENIED: a read-scoped key, or an anonymous verification (from the keyless MCP tier: anonymous verifications cannot be shared, claim it first)' },
  404: { description: 'VERIFICATION_NOT_FOUND (also when not yours)' },
};

/** Sharing: the share of a verification, its invitations, and the views of its report. */
export function sharingRoutes(deps: AppDeps): RouteSpec[] {
  const path = '/v1/verifications/{verification_id}';
  return [
    route({
      method: 'get',
      path: `${path}/share`,
      tag: 'sharing',
      summary: 'Read the share of your verification',
      auth: 'any',
      params: verificationIdParam,
      responses: { 200: { description: 'Share', schema: shareSchema }, ...ownerErrors, 404: { description: 'VERIFICATION_NOT_FOUND (also when not yours); NOT_SHARED' } },
      handler: async ({ params, principal }) => ({ status: 200, headers: { 'Cache-Control': 'no-store' }, body: await getShare(deps, principal, params.verification_id) }),
    }),
    route({
      method: 'post',
      path: `${path}/share`,
      tag: 'sharing',
      summary: 'Share your verification, or change the access type of its share (the URL is kept)',
      description:
        '`anyone_with_link`: whoever has the URL opens the report. `restricted`: only invited addresses (POST …/share/invites). Invited addresses are notified by e-mail when the access type changes. Anonymous verifications cannot be shared.',
      auth: 'any',
      params: verificationIdParam,
      body: shareBody,
      responses: { 200: { description: 'Share', schema: shareSchema }, ...ownerErrors },
      handler: async ({ params, body, call }) => ({ status: 200, headers: { 'Cache-Control': 'no-store' }, body: await shareVerification(deps, call, params.verification_id, body.access_type) }),
    }),
    route({
      method: 'delete',
      path: `${path}/share`,
      tag: 'sharing',
      summary: 'Stop sharing: the URL stops working and every invitation is removed',
      description: 'Sharing again later gives a new URL.',
      auth: 'any',
      params: verificationIdParam,
      responses: { 200: { description: 'Removed', schema: confirmationSchema }, ...ownerErrors, 404: { description: 'VERIFICATION_NOT_FOUND (also when not yours); NOT_SHARED' } },
      handler: async ({ params, call }) => {
        await unshareVerification(deps, call, params.verification_id);
        return { status: 200, body: { detail: 'Sharing removed: the link no longer works and all invitations are revoked.' } };
      },
    }),
    route({
      method: 'post',
      path: `${path}/share/invites`,
      tag: 'sharing',
      summary: 'Invite an e-mail address to a restricted share',
      description:
        'The address receives an e-mail with its personal link (who shared it, the verification date and basic details). Repeating an invitation changes nothing and sends no second e-mail. `user_exists` says whether the address belongs to a registered user (who can also open the report signed in).',
      auth: 'any',
      params: verificationIdParam,
      body: emailBody.openapi('ShareInvite'),
      responses: {
        200: { description: 'Invited', schema: z.object({ email: z.string(), user_exists: z.boolean() }).openapi('ShareInviteResult') },
        400: { description: 'SHARE_NOT_FOUND: the verification has no restricted share' },
        ...ownerErrors,
      },
      handler: async ({ params, body, call }) => ({ status: 200, body: await inviteToShare(deps, call, params.verification_id, body.email) }),
    }),
    route({
      method: 'delete',
      path: `${path}/share/invites`,
      tag: 'sharing',
      summary: 'Revoke an invited address: its access ends at once',
      auth: 'any',
      params: verificationIdParam,
      body: emailBody.openapi('ShareInviteRevoke'),
      responses: { 200: { description: 'Revoked', schema: confirmationSchema }, ...ownerErrors, 404: { description: 'VERIFICATION_NOT_FOUND (also when not yours); INVITE_NOT_FOUND: the address is not invited' } },
      handler: async ({ params, body, call }) => {
        await revokeInvite(deps, call, params.verification_id, body.email);
        return { status: 200, body: { detail: 'Invitation revoked.' } };
      },
    }),
    route({
      method: 'get',
      path: `${path}/analytics/views`,
      tag: 'sharing',
      summary: 'Views of the shared report per day',
      description:
        'start_date and end_date: ISO 8601 dates (YYYY-MM-DD, UTC days) or date-times, both inclusive; end_date defaults to today and start_date to 29 days before end_date; at most 366 days. A visitor counts once per day; the owner account’s own views are not counted.',
      auth: 'any',
      params: verificationIdParam,
      query: z.strictObject({ start_date: z.string().max(64).optional(), end_date: z.string().max(64).optional() }),
      responses: {
        200: { description: 'View analytics', schema: analyticsSchema },
        400: { description: 'INVALID_FORMAT: a date that is not ISO 8601; VALIDATION_ERROR: start after end, or more than 366 days' },
        ...ownerErrors,
      },
      handler: async ({ params, query, principal }) => ({ status: 200, body: await viewAnalytics(deps, principal, params.verification_id, query) }),
    }),
  ];
}
