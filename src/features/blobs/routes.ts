import { z } from 'zod';
import { redirect, route, type RouteSpec } from '../../core/http/route-spec.js';
import type { AppDeps } from '../../core/module/deps.js';
import { openSignedBlob } from './use-cases.js';
import { untrustedFileHeaders } from '../../core/http/http-headers.js';


/** The bytes are a client's upload, served from the service's own origin: untrustedFileHeaders. */
/** Serves blobs behind pre-signed URLs (the file blob store's stand-in for a CDN). */
export function blobRoutes(deps: AppDeps): RouteSpec[] {
  return [
    route({
      method: 'get',
      path: '/blobs/{key}',
      tag: 'public',
      summary: 'Download through a pre-signed URL (from the redirect endpoints); no other authentication',
      auth: 'none',
      params: z.strictObject({ key: z.string().regex(/^[A-Za-z0-9_-]{1,400}$/) }),
      query: z.strictObject({ exp: z.string(), ct: z.string(), sig: z.string() }),
      responses: {
        200: { description: 'The file, as the type the link was signed for (a RAW: application/octet-stream)', contentTypes: ['image/*', 'application/octet-stream'] },
        302: { description: 'With S3 storage and S3_DOWNLOADS=redirect: to the S3 pre-signed URL (valid until the link expires, at most 1 hour)' },
        403: { description: 'Tampered or expired URL' },
        404: { description: 'File no longer exists' },
      },
      handler: async ({ params, query }) => {
        const opened = await openSignedBlob(deps, { encodedKey: params.key, ...query });
        if ('redirect' in opened) return redirect(opened.redirect);
        const { stream, contentType } = opened;
        return { status: 200, headers: { ...untrustedFileHeaders(contentType), 'Cache-Control': 'private, max-age=3600' }, stream };
      },
    }),
  ];
}
