import { z } from 'zod';
import { isoDate } from '../../core/http/schemas.js';
import { apiKeyScopes } from './events.js';
import type { ApiKeyRow } from '../../../projections/apikeys/index.js';

/** The API's shape of an API key (never the raw key, except once on creation), and its mapping from the read model. */
export const apiKeyItem = z
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

export const apiKeyCreated = apiKeyItem
  .omit({ is_active: true, last_used_at: true, updated_at: true })
  .extend({ raw_key: z.string().describe('The full key. Shown only in this response; store it now.') })
  .openapi('ApiKeyCreated');

export type ApiKeyView = z.infer<typeof apiKeyItem>;
export type ApiKeyCreatedView = z.infer<typeof apiKeyCreated>;

export function toApiKey(row: ApiKeyRow, now: Date): ApiKeyView {
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
