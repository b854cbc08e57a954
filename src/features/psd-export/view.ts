import { z } from 'zod';
import { PSD_DOWNLOADS_LIMIT } from '../../../workflows/psd-export/policy.js';
import type { PsdExportState } from './decider.js';
import { EXPIRED_ERROR } from '../../../projections/psd-export/index.js';

/**
 * The spec's PSD export status (2.6), as GET …/psd-export answers it and the Verification's
 * `psd_export` mirrors it (projections/psd-export/queries.ts psdExportColumn builds both). An expired export keeps the
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

/**
 * The status of the export the stream's state holds (undefined when none was requested): what a
 * request answers from its own command's outcome, so an accepted request never waits on the read
 * model. The same mapping as the read model's (projections/psd-export/queries.ts psdExportColumn: an expired export stays
 * `completed`, `error` saying it expired); test/http/psd-export.test.ts checks the two agree.
 */
export function psdExportStatusOf(state: PsdExportState): PsdExportStatusView | undefined {
  if (state.status === 'none') return undefined;
  const file = state.file;
  return {
    status: state.status === 'expired' ? 'completed' : state.status,
    file_size_bytes: file?.file_size_bytes ?? null,
    canvas_width: file?.canvas_width ?? null,
    canvas_height: file?.canvas_height ?? null,
    downloads_used: state.downloadsUsed,
    downloads_limit: PSD_DOWNLOADS_LIMIT,
    expires_at: file ? new Date(file.expiresAt).toISOString() : null,
    error: state.status === 'expired' ? EXPIRED_ERROR : state.error,
    created_at: new Date(state.requestedAt).toISOString(),
  };
}
