import { z } from 'zod';
import { defineEvent, type EventOf } from '../../core/es/events.js';
import { streamName } from '../../core/es/streams.js';

/**
 * The PSD exports of one verification, in the stream `psdexport-<verification_id>` (apart from
 * the verification's own stream, so exports and downloads never contend with processing). Its
 * events belong to the verification's account: they are part of the verification's audit
 * history. One export at a time: a request while one exists (not failed, not expired) changes
 * nothing; after a failure or the expiry a new one, with a new `export_id`, regenerates it.
 */
export const psdExportStream = (verificationId: string) => streamName('psdexport', verificationId);

const exportId = z.uuid();

export const psdExportEvents = {
  PsdExportRequested: defineEvent(
    'PsdExportRequested',
    z.object({
      export_id: exportId,
      /** Regenerates a failed or expired export of the same verification: free of charge (spec 3.2). */
      regeneration: z.boolean(),
      requested_at: z.iso.datetime(),
    }),
  ),
  PsdExportStarted: defineEvent('PsdExportStarted', z.object({ export_id: exportId, started_at: z.iso.datetime() })),
  PsdExportCompleted: defineEvent(
    'PsdExportCompleted',
    z.object({
      export_id: exportId,
      blob_key: z.string(),
      sha256: z.string().regex(/^[0-9a-f]{64}$/),
      file_size_bytes: z.number().int().nonnegative(),
      canvas_width: z.number().int().positive(),
      canvas_height: z.number().int().positive(),
      completed_at: z.iso.datetime(),
      /** 30 days after completion (spec 8): downloads answer 410 from then on, and the file is deleted. */
      expires_at: z.iso.datetime(),
    }),
  ),
  PsdExportFailed: defineEvent('PsdExportFailed', z.object({ export_id: exportId, reason: z.string(), failed_at: z.iso.datetime() })),
  PsdExportDownloaded: defineEvent(
    'PsdExportDownloaded',
    z.object({
      export_id: exportId,
      /** Downloads of this export so far, this one included (at most 5). */
      downloads_used: z.number().int().positive(),
      downloaded_at: z.iso.datetime(),
      /** The end of the signed URL this download was answered with (5 minutes: use-cases.ts PSD_DOWNLOAD_URL_TTL_SECONDS). */
      url_expires_at: z.iso.datetime(),
    }),
  ),
  PsdExportExpired: defineEvent(
    'PsdExportExpired',
    z.object({
      export_id: exportId,
      /** The file, deleted with this event. */
      blob_key: z.string(),
      expired_at: z.iso.datetime(),
      /** Absent: the 30 days passed. `verification_deleted`: ended early, its verification deleted (the file is not kept for a verification that is gone). */
      reason: z.enum(['verification_deleted']).optional(),
    }),
  ),
} as const;
export type PsdExportEvent = EventOf<typeof psdExportEvents>;
