import { z } from 'zod';
import { PSD_DOWNLOADS_LIMIT } from '../../../workflows/psd-export/policy.js';

/**
 * The spec's PSD export status (2.6), as GET …/psd-export answers it and the Verification's
 * `psd_export` mirrors it (queries.ts psdExportColumn builds both). An expired export keeps the
 * status `completed`, with `expires_at` in the past and `error` saying it expired.
 */
export const psdExportStatusSchema = z
  .object({
    status: z.enum(['pending', 'queued', 'in_progress', 'completed', 'failed']).describe('queued once requested, in_progress while the file is built, then completed or failed.'),
    file_size_bytes: z.number().int().nullable(),
    canvas_width: z.number().int().nullable().describe("The photo's width in pixels (orientation applied)."),
    canvas_height: z.number().int().nullable(),
    downloads_used: z.number().int(),
    downloads_limit: z.literal(PSD_DOWNLOADS_LIMIT),
    expires_at: z.string().nullable().describe('30 days after completion: downloads answer 410 EXPIRED from then on and the file is deleted; a new request regenerates it free of charge.'),
    error: z.string().nullable().describe('Why the export failed, or that it expired.'),
    created_at: z.string().describe('When this export was requested (a regeneration is a new export).'),
  })
  .openapi('PsdExportStatus');

export type PsdExportStatusView = z.infer<typeof psdExportStatusSchema>;
