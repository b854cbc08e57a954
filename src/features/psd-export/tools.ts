import { z } from 'zod';
import type { AppDeps } from '../../core/module/deps.js';
import { callerOf } from '../../core/principal.js';
import { tool, type ToolSpec } from '../../core/http/tool-spec.js';
import { verificationIdParam } from '../verifications/index.js';
import { downloadPsdExport, getPsdExport, MAX_WAIT_SECONDS, PSD_DOWNLOAD_URL_TTL_SECONDS, requestPsdExport } from './use-cases.js';
import { psdExportStatusSchema } from './view.js';

/** The agent's door to the PSD export: the same use cases as POST …/psd-export and GET …/psd-export/download. */
export function psdExportTools(deps: AppDeps): ToolSpec[] {
  return [
    tool({
      name: 'export_psd',
      title: 'Export a verification as a layered PSD',
      description:
        `Requests the layered PSD of your completed RAW+JPEG verification (the photo, the pixel-registered RAW rendition and a hidden SSIM difference heatmap; Professional and Enterprise plans) or, when it exists, returns its status unchanged: calling again is safe and charges nothing. Waits up to \`wait\` seconds for it to finish. With \`download: true\` and a completed export, also returns a download_url (valid ${PSD_DOWNLOAD_URL_TTL_SECONDS / 60} minutes) that uses one of the export's 5 downloads. Errors: NOT_ENTITLED, BUDGET_EXCEEDED, VALIDATION_ERROR (not completed or image-only), DOWNLOAD_LIMIT_REACHED, EXPIRED (call again without download to regenerate, free).`,
      access: 'key',
      readOnly: false,
      input: verificationIdParam.extend({
        wait: z.number().int().min(0).max(MAX_WAIT_SECONDS).default(MAX_WAIT_SECONDS).describe(`Seconds to wait for the export to finish (0-${MAX_WAIT_SECONDS}).`),
        download: z.boolean().default(false).describe('Also return a download URL when the export is completed (uses one of its 5 downloads).'),
      }),
      output: psdExportStatusSchema.extend({ download_url: z.string().optional().describe('Signed URL of the PSD; GET it before it expires.') }),
      handler: async (call, input) => {
        const status = await requestPsdExport(deps, call, input.verification_id, input.wait);
        if (!input.download || status.status !== 'completed') {
          return { output: status, summary: `PSD export ${status.status}${status.error ? `: ${status.error}` : ''}.` };
        }
        const url = (await downloadPsdExport(deps, call, input.verification_id))!;
        const after = await getPsdExport(deps, callerOf(call), input.verification_id);
        return {
          output: { ...after, download_url: url },
          summary: `PSD ready (${after.canvas_width}×${after.canvas_height} px); download ${after.downloads_used} of ${after.downloads_limit}: GET download_url.`,
        };
      },
    }),
  ];
}
