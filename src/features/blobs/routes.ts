import { z } from 'zod';
import { route, type RouteSpec } from '../../core/route-spec.js';
import type { AppDeps } from '../../core/deps.js';
import { openSignedBlob } from './use-cases.js';

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
      responses: { 200: { description: 'The file' }, 403: { description: 'Tampered or expired URL' }, 404: { description: 'File no longer exists' } },
      handler: async ({ params, query }) => {
        const { stream, contentType } = await openSignedBlob(deps, { encodedKey: params.key, ...query });
        return { status: 200, headers: { 'Content-Type': contentType, 'Content-Disposition': 'inline', 'Cache-Control': 'private, max-age=3600' }, stream };
      },
    }),
  ];
}
