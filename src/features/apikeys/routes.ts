import { z } from 'zod';
import { route, type RouteSpec } from '../../core/http/route-spec.js';
import type { AppDeps } from '../../core/module/deps.js';
import { uuidParam } from '../../core/http/schemas.js';
import { oneLineText } from '../../core/text/text-schemas.js';
import { apiKeyScopes } from './events.js';
import { createApiKey, listApiKeys, revokeApiKey } from './use-cases.js';
import { apiKeyCreated, apiKeyItem } from './view.js';

/** Longest key lifetime: ten years. The spec leaves the maximum open (docs/decisions/, D-004). */
export const MAX_KEY_DAYS = 3650;

export const createBody = z
  .strictObject({
    account_id: z.uuid(),
    description: oneLineText().max(200).nullable().optional(),
    expires_in_days: z.number().int().min(1).max(MAX_KEY_DAYS).default(365),
    scope: z.enum(apiKeyScopes).default('full').describe('"full": everything the owning user may do. "read": GET requests only.'),
  })
  .openapi('ApiKeyCreate');

export function apiKeyRoutes(deps: AppDeps): RouteSpec[] {
  return [
    route({
      method: 'get',
      path: '/v1/apikeys/',
      tag: 'apikeys',
      summary: "List API keys (active, expired and revoked): an admin's call lists every key of the account, a member's only the keys that member created; raw keys are never returned",
      auth: 'any',
      responses: { 200: { description: 'API keys', schema: z.array(apiKeyItem) } },
      handler: async ({ principal }) => ({ status: 200, body: await listApiKeys(deps, principal) }),
    }),
    route({
      method: 'post',
      path: '/v1/apikeys/',
      tag: 'apikeys',
      summary: 'Create an API key (requires a JWT); the raw key is returned once',
      auth: 'jwt',
      body: createBody,
      responses: { 201: { description: 'Key created', schema: apiKeyCreated }, 403: { description: 'No access to that account, or not a JWT' } },
      handler: async ({ body, call }) => ({ status: 201, headers: { 'Cache-Control': 'no-store' }, body: await createApiKey(deps, call, body) }),
    }),
    route({
      method: 'delete',
      path: '/v1/apikeys/{key_id}',
      tag: 'apikeys',
      summary: 'Revoke an API key permanently: an admin any key of the account, a member only their own',
      auth: 'any',
      params: uuidParam('key_id'),
      responses: { 204: { description: 'Revoked' }, 404: { description: "No such key among those you manage (another user's key, for a member, answers the same as an unknown one)" } },
      handler: async ({ params, call }) => {
        await revokeApiKey(deps, call, params.key_id as string);
        return { status: 204 };
      },
    }),
  ];
}
