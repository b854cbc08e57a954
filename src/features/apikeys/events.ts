import { z } from 'zod';
import { defineEvent, type EventOf } from '../../core/es/events.js';
import { apiKeyScopes } from '../../core/principal.js';

/** `full`: everything the owning user may do. `read`: only reads (GET). */
export { apiKeyScopes, type ApiKeyScope } from '../../core/principal.js';

export const apiKeyEvents = {
  ApiKeyCreated: defineEvent(
    'ApiKeyCreated',
    z.object({
      key_id: z.uuid(),
      account_id: z.uuid(),
      user_id: z.uuid(),
      prefix: z.string(),
      key_hash: z.string(),
      description: z.string().nullable(),
      scope: z.enum(apiKeyScopes),
      created_at: z.iso.datetime(),
      expires_at: z.iso.datetime(),
    }),
    { redact: ['key_hash'] },
  ),
  ApiKeyRevoked: defineEvent('ApiKeyRevoked', z.object({ key_id: z.uuid(), revoked_at: z.iso.datetime() })),
  ApiKeyUsed: defineEvent('ApiKeyUsed', z.object({ key_id: z.uuid(), used_at: z.iso.datetime() })),
} as const;
export type ApiKeyEvent = EventOf<typeof apiKeyEvents>;
