import type { Readable } from 'node:stream';
import { z } from 'zod';
import { route, type RouteSpec } from '../../core/http/route-spec.js';
import type { AppDeps } from '../../core/module/deps.js';
import { uploadIdSchema } from './schemas.js';
import { receiveUpload } from './use-cases.js';

/** The pre-signed PUT target of create_upload (the file blob store's stand-in for an S3 presigned PUT). */
export function uploadRoutes(deps: AppDeps): RouteSpec[] {
  return [
    route({
      method: 'put',
      path: '/uploads/{upload_id}',
      tag: 'public',
      summary: 'Receive the file of a pre-signed upload (from the MCP tool create_upload); the URL is the only credential',
      description: 'The body is the file itself (any Content-Type but JSON), at most MAX_UPLOAD_BYTES. One PUT per upload id; valid 1 hour.',
      auth: 'none',
      params: z.strictObject({ upload_id: uploadIdSchema }),
      responses: {
        200: { description: 'Received', schema: z.object({ upload_id: z.string(), size: z.number().int(), sha256: z.string() }).openapi('UploadReceived') },
        404: { description: 'UPLOAD_NOT_FOUND: not an upload id this service issued' },
        409: { description: 'UPLOAD_ALREADY_RECEIVED' },
        410: { description: 'UPLOAD_EXPIRED (an unused file is deleted 15 minutes after the id expires)' },
        413: { description: 'File larger than MAX_UPLOAD_BYTES' },
      },
      handler: async ({ params, call, rawBody }) => ({ status: 200, body: await receiveUpload(deps, call, params.upload_id, rawBody() as Readable) }),
    }),
  ];
}
