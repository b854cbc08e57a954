import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import { Router } from 'express';
import { z } from 'zod';
import { AccessDeniedError, NotFoundError } from '../../core/errors.js';
import type { ApiDeps } from '../../core/deps.js';
import { defineRoute } from '../../adapters/http/route.js';

/** Serves blobs behind pre-signed URLs (the file blob store's stand-in for a CDN). */
export function blobRoutes(deps: ApiDeps, registry: OpenAPIRegistry): Router {
  const router = Router();
  defineRoute(router, registry, deps, {
    method: 'get',
    path: '/blobs/{key}',
    tag: 'public',
    summary: 'Download through a pre-signed URL (from the redirect endpoints); no other authentication',
    auth: 'none',
    params: z.strictObject({ key: z.string().regex(/^[A-Za-z0-9_-]{1,400}$/) }),
    query: z.strictObject({ exp: z.string(), ct: z.string(), sig: z.string() }),
    responses: { 200: { description: 'The file' }, 403: { description: 'Tampered or expired URL' }, 404: { description: 'File no longer exists' } },
    async handler({ params, query, res }) {
      const key = Buffer.from(params.key, 'base64url').toString('utf8');
      const verdict = deps.urlSigner.verify(key, query, deps.now());
      if (verdict !== 'ok') {
        throw new AccessDeniedError(verdict === 'expired' ? 'This link has expired.' : 'This link is not valid.', {
          suggestion: 'Ask the API for a new link (the redirect endpoints issue links valid for 1 hour).',
        });
      }
      if (!(await deps.blobs.exists(key))) throw new NotFoundError('NOT_FOUND', 'The file no longer exists.');
      res.status(200).setHeader('Content-Type', query.ct).setHeader('Content-Disposition', 'inline').setHeader('Cache-Control', 'private, max-age=3600');
      await new Promise<void>((resolve, reject) => deps.blobs.stream(key).on('error', reject).pipe(res).on('finish', resolve).on('error', reject));
    },
  });
  return router;
}
