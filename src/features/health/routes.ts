import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import { Router } from 'express';
import { z } from 'zod';
import type { ApiDeps } from '../../core/deps.js';
import { defineRoute } from '../../adapters/http/route.js';

const dependency = z.object({ status: z.enum(['ok', 'degraded', 'down']), adapter: z.string(), detail: z.string().optional() });

export function healthRoutes(deps: ApiDeps, registry: OpenAPIRegistry): Router {
  const router = Router();
  defineRoute(router, registry, deps, {
    method: 'get',
    path: '/v1/public/health',
    tag: 'public',
    summary: 'Service health and the state of each dependency (no authentication)',
    auth: 'none',
    responses: {
      200: {
        description: 'Healthy (status ok) or degraded',
        schema: z
          .object({
            status: z.enum(['ok', 'degraded', 'down']),
            version: z.string(),
            processing_region: z.string(),
            dependencies: z.record(z.string(), dependency),
            projections: z.array(z.object({ name: z.string(), position: z.string(), state: z.string(), error: z.string().optional() })),
          })
          .openapi('Health'),
      },
      503: { description: 'A required dependency is down' },
    },
    async handler() {
      const [database, eventStore, workflows] = await Promise.all([
        probe(deps.databaseKind, () => deps.knex.raw('select 1')),
        probe(deps.store.kind, () => deps.store.headPosition()),
        deps.workflows.health?.() ?? { status: 'ok' as const, adapter: deps.workflows.kind },
      ]);
      const projections = deps.projections.status();
      const projectionState = projections.some((p) => p.state === 'failed') ? 'down' : 'ok';
      const dependencies = {
        database,
        event_store: eventStore,
        read_models: { status: projectionState, adapter: 'projector runner' } as const,
        workflows,
      };
      const states = Object.values(dependencies).map((d) => d.status);
      const status = states.includes('down') ? 'down' : states.includes('degraded') ? 'degraded' : 'ok';
      return {
        status: status === 'down' ? 503 : 200,
        headers: { 'Cache-Control': 'no-store' },
        body: { status, version: process.env.npm_package_version ?? '0.1.0', processing_region: deps.config.PROCESSING_REGION, dependencies, projections },
      };
    },
  });
  return router;
}

async function probe(adapter: string, check: () => Promise<unknown>): Promise<z.infer<typeof dependency>> {
  try {
    await Promise.race([check(), new Promise((_, reject) => setTimeout(() => reject(new Error('timed out after 2 s')), 2000).unref())]);
    return { status: 'ok', adapter };
  } catch (error) {
    return { status: 'down', adapter, detail: (error as Error).message };
  }
}
