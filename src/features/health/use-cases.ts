import type { AppDeps } from '../../core/deps.js';
import type { ProjectorStatus } from '../../core/projector.js';

export type DependencyState = 'ok' | 'degraded' | 'down';

export interface DependencyHealth {
  status: DependencyState;
  adapter: string;
  detail?: string;
}

export interface Health {
  status: DependencyState;
  version: string;
  processing_region: string;
  dependencies: Record<string, DependencyHealth>;
  projections: ProjectorStatus[];
}

/** The service's health and the state of each dependency; 'down' when a required one is down. */
export async function checkHealth(deps: AppDeps): Promise<Health> {
  const [database, eventStore, workflows] = await Promise.all([
    probe(deps.databaseKind, () => deps.knex.raw('select 1')),
    probe(deps.store.kind, () => deps.store.headPosition()),
    deps.workflows.health?.() ?? { status: 'ok' as const, adapter: deps.workflows.kind },
  ]);
  const projections = deps.readModels.status();
  const projectionState = projections.some((p) => p.state === 'failed') ? 'down' : 'ok';
  const dependencies = {
    database,
    event_store: eventStore,
    read_models: { status: projectionState, adapter: 'projector runner' } as const,
    workflows,
  };
  const states = Object.values(dependencies).map((d) => d.status);
  const status = states.includes('down') ? 'down' : states.includes('degraded') ? 'degraded' : 'ok';
  return { status, version: process.env.npm_package_version ?? '0.1.0', processing_region: deps.config.PROCESSING_REGION, dependencies, projections };
}

async function probe(adapter: string, check: () => Promise<unknown>): Promise<DependencyHealth> {
  try {
    await Promise.race([check(), new Promise((_, reject) => setTimeout(() => reject(new Error('timed out after 2 s')), 2000).unref())]);
    return { status: 'ok', adapter };
  } catch (error) {
    return { status: 'down', adapter, detail: (error as Error).message };
  }
}
