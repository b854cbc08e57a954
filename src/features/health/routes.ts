import { z } from 'zod';
import { route, type RouteSpec } from '../../core/http/route-spec.js';
import type { AppDeps } from '../../core/module/deps.js';
import { checkHealth } from './use-cases.js';

const dependency = z.object({ status: z.enum(['ok', 'degraded', 'down']), adapter: z.string(), detail: z.string().optional() });

export function healthRoutes(deps: AppDeps): RouteSpec[] {
  return [
    route({
      method: 'get',
      path: '/v1/public/health',
      tag: 'public',
      summary: 'Service health and the state of each dependency (no authentication)',
      description: 'Credentials are not read: a request with a wrong, expired or revoked key or token is answered as one without.',
      auth: 'ignored',
      responses: {
        200: {
          description: 'Healthy (status ok) or degraded',
          schema: z
            .object({
              status: z.enum(['ok', 'degraded', 'down']),
              role: z.enum(['api', 'worker', 'all']).describe('What this process does (ROLE): api serves HTTP, worker runs the workflows, all does both'),
              version: z.string(),
              processing_region: z.string(),
              dependencies: z.record(z.string(), dependency),
              projections: z.array(z.object({ name: z.string(), position: z.string(), state: z.string(), error: z.string().optional() })),
            })
            .openapi('Health'),
        },
        503: { description: 'A required dependency is down' },
      },
      handler: async () => {
        const health = await checkHealth(deps);
        return { status: health.status === 'down' ? 503 : 200, headers: { 'Cache-Control': 'no-store' }, body: health };
      },
    }),
  ];
}
