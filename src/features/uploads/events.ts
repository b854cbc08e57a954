import { z } from 'zod';
import { defineEvent, type EventOf } from '../../core/es/events.js';

/**
 * One upload in the stream `upload-<nonce>` (the nonce of its upload id, tokens.ts): its file
 * received, then either used by a verification (which holds its own copy) or, unused, expired
 * and its file deleted. The upload id itself is a credential while it is valid and is never
 * recorded; the stream's account is the one that created it (none for a keyless upload).
 */
export const uploadEvents = {
  UploadReceived: defineEvent(
    'UploadReceived',
    z.object({
      filename: z.string(),
      size: z.number().int().nonnegative(),
      sha256: z.string().regex(/^[0-9a-f]{64}$/),
      blob_key: z.string(),
      /** The end of the upload id's validity. */
      expires_at: z.iso.datetime(),
      received_at: z.iso.datetime(),
    }),
  ),
  UploadUsed: defineEvent('UploadUsed', z.object({ verification_id: z.uuid(), used_at: z.iso.datetime() })),
  UploadExpired: defineEvent(
    'UploadExpired',
    z.object({
      /** The received file, deleted with this event. */
      blob_key: z.string(),
      expires_at: z.iso.datetime(),
      expired_at: z.iso.datetime(),
    }),
  ),
} as const;
export type UploadEvent = EventOf<typeof uploadEvents>;
