import crypto from 'node:crypto';
import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import { Router } from 'express';
import { z } from 'zod';
import { apiKeyDecider, apiKeyStream } from './decider.js';
import { apiKeyScopes } from './events.js';
import { NotFoundError } from '../../core/errors.js';
import { generateApiKey } from './key-material.js';
import { commandContext, execute } from '../../core/commands.js';
import type { ApiDeps } from '../../core/deps.js';
import { defineRoute } from '../../adapters/http/route.js';
import { isoDate, uuidParam } from '../../core/schemas.js';
import { assertAccountAccess } from '../accounts/routes.js';

/** Longest key lifetime: ten years. The spec leaves the maximum open (docs/decisions.md). */
export const MAX_KEY_DAYS = 3650;

const apiKeyItem = z
  .object({
    id: z.uuid(),
    prefix: z.string(),
    account_id: z.uuid(),
    user_id: z.uuid(),
    description: z.string().nullable(),
    scope: z.enum(apiKeyScopes),
    expires_at: z.string(),
    is_active: z.boolean(),
    last_used_at: z.string().nullable(),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .openapi('ApiKey');

const apiKeyCreated = apiKeyItem
  .omit({ is_active: true, last_used_at: true, updated_at: true })
  .extend({ raw_key: z.string().describe('The full key. Shown only in this response; store it now.') })
  .openapi('ApiKeyCreated');

const createBody = z
  .strictObject({
    account_id: z.uuid(),
    description: z.string().trim().max(200).nullable().optional(),
    expires_in_days: z.number().int().min(1).max(MAX_KEY_DAYS).default(365),
    scope: z.enum(apiKeyScopes).default('full').describe('"full": everything the owning user may do. "read": GET requests only.'),
  })
  .openapi('ApiKeyCreate');

function toItem(row: Record<string, any>, now: Date): z.infer<typeof apiKeyItem> {
  return {
    id: row.id,
    prefix: row.prefix,
    account_id: row.account_id,
    user_id: row.user_id,
    description: row.description,
    scope: row.scope,
    expires_at: isoDate(row.expires_at)!,
    is_active: !row.revoked_at && new Date(row.expires_at) > now,
    last_used_at: isoDate(row.last_used_at),
    created_at: isoDate(row.created_at)!,
    updated_at: isoDate(row.updated_at)!,
  };
}

export function apiKeyRoutes(deps: ApiDeps, registry: OpenAPIRegistry): Router {
  const router = Router();

  defineRoute(router, registry, deps, {
    method: 'get',
    path: '/v1/apikeys/',
    tag: 'apikeys',
    summary: "List the account's API keys (active, expired and revoked); raw keys are never returned",
    auth: 'any',
    responses: { 200: { description: 'API keys', schema: z.array(apiKeyItem) } },
    async handler({ principal }) {
      const rows = await deps.knex('api_keys').where({ account_id: principal.accountId }).orderBy('created_at', 'desc');
      const now = deps.now();
      return { status: 200, body: rows.map((row) => toItem(row, now)) };
    },
  });

  defineRoute(router, registry, deps, {
    method: 'post',
    path: '/v1/apikeys/',
    tag: 'apikeys',
    summary: 'Create an API key (requires a JWT); the raw key is returned once',
    auth: 'jwt',
    body: createBody,
    responses: { 201: { description: 'Key created', schema: apiKeyCreated }, 403: { description: 'No access to that account, or not a JWT' } },
    async handler({ body, principal, req, res }) {
      assertAccountAccess(principal, body.account_id);
      const keyId = crypto.randomUUID();
      const key = generateApiKey();
      const context = commandContext(deps, req, principal);
      await execute(deps, res, apiKeyStream(keyId), apiKeyDecider, {
        type: 'CreateApiKey',
        key_id: keyId,
        account_id: body.account_id,
        user_id: principal.userId,
        prefix: key.prefix,
        key_hash: key.hash,
        description: body.description ?? null,
        scope: body.scope,
        expires_in_days: body.expires_in_days,
        now: context.now,
      }, context);
      const row = await deps.knex('api_keys').where({ id: keyId }).first();
      const { is_active: _active, last_used_at: _used, updated_at: _updated, ...created } = toItem(row, deps.now());
      return { status: 201, headers: { 'Cache-Control': 'no-store' }, body: { ...created, raw_key: key.raw } };
    },
  });

  defineRoute(router, registry, deps, {
    method: 'delete',
    path: '/v1/apikeys/{key_id}',
    tag: 'apikeys',
    summary: 'Revoke an API key permanently',
    auth: 'any',
    params: uuidParam('key_id'),
    responses: { 204: { description: 'Revoked' }, 404: { description: 'No such key in your account' } },
    async handler({ params, principal, req, res }) {
      const keyId = params.key_id as string;
      const row = await deps.knex('api_keys').where({ id: keyId, account_id: principal.accountId }).first();
      if (!row) throw new NotFoundError('API_KEY_NOT_FOUND', 'API key not found.', { suggestion: 'List your keys with GET /v1/apikeys/.' });
      await execute(deps, res, apiKeyStream(keyId), apiKeyDecider, { type: 'RevokeApiKey', account_id: principal.accountId, now: deps.now() }, commandContext(deps, req, principal));
      return { status: 204 };
    },
  });

  return router;
}
