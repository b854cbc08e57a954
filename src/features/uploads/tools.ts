import { z } from 'zod';
import type { AppDeps } from '../../core/module/deps.js';
import { cleanFileName } from '../../core/text/text.js';
import { fileNameInput } from '../../core/text/text-schemas.js';
import { tool, type ToolSpec } from '../../core/http/tool-spec.js';
import { createUpload } from './use-cases.js';

const ticketSchema = z.object({
  upload_id: z.string().describe('Pass it as { "upload_id": … } in place of inline content to verify_image or verify_pair.'),
  upload_url: z.string().describe('PUT the file bytes here (Content-Type: application/octet-stream), no other credential needed.'),
  method: z.literal('PUT'),
  expires_at: z.string().describe('Send the file and verify before this time (1 hour); a file not used by a verification is deleted soon after.'),
  max_bytes: z.number().int(),
});

/** Pre-signed uploads for files too large to pass inline to a verify tool. */
export function uploadTools(deps: AppDeps): ToolSpec[] {
  return [
    tool({
      name: 'create_upload',
      title: 'Create a pre-signed upload',
      description:
        'For a file too large to pass inline as base64: returns an upload_url to PUT the file bytes to (valid 1 hour, one file) and an upload_id to pass to verify_image or verify_pair instead of the content. One upload per file (a pair needs two). Available without an API key while this address has keyless verifications left.',
      access: 'keyless',
      readOnly: false,
      input: z.strictObject({ filename: fileNameInput().describe('The original file name, recorded as the verification name (for the image).') }),
      output: ticketSchema,
      handler: async (call, input) => {
        const ticket = await createUpload(deps, call, cleanFileName(input.filename));
        return { output: ticket, summary: `PUT the file to upload_url before ${ticket.expires_at}, then pass upload_id ${ticket.upload_id.slice(0, 12)}… to a verify tool.` };
      },
    }),
  ];
}
