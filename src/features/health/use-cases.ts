import fs from 'node:fs/promises';
import net from 'node:net';
import type { AppDeps } from '../../core/module/deps.js';
import type { ProjectorStatus } from '../../core/es/projector.js';

export type DependencyState = 'ok' | 'degraded' | 'down';

export interface DependencyHealth {
  status: DependencyState;
  adapter: string;
  detail?: string;
}

export interface Health {
  status: DependencyState;
  /** What this process does (ROLE): its dependencies follow from it. */
  role: 'api' | 'worker' | 'all';
  version: string;
  processing_region: string;
  dependencies: Record<string, DependencyHealth>;
  projections: ProjectorStatus[];
}

/**
 * The service's health and the state of each dependency of this process's role; 'down' when a
 * required one is down. Mail is a worker's (and all's) dependency only, and never required: an
 * unreachable mail server delays messages (they are retried), so it makes the service degraded.
 */
export async function checkHealth(deps: AppDeps): Promise<Health> {
  const role = deps.config.ROLE;
  const [database, eventStore, blobStore, workflows, mail] = await Promise.all([
    probe(deps.databaseKind, () => deps.knex.raw('select 1')),
    probe(deps.store.kind, () => deps.store.headPosition()),
    probe(deps.blobs.kind, () => deps.blobs.ping()),
    deps.workflows.health?.() ?? { status: 'ok' as const, adapter: deps.workflows.kind },
    role === 'api' ? undefined : probe(deps.mailer.kind, () => mailReachable(deps.config)).then((m): DependencyHealth => (m.status === 'down' ? { ...m, status: 'degraded' } : m)),
  ]);
  const projections = deps.readModels.status();
  const projectionState = projections.some((p) => p.state === 'failed') ? 'down' : 'ok';
  const dependencies = {
    database,
    event_store: eventStore,
    blob_store: blobStore,
    read_models: { status: projectionState, adapter: 'projector runner' } as const,
    workflows,
    ...(mail ? { mail } : {}),
  };
  const states = Object.values(dependencies).map((d) => d.status);
  const status = states.includes('down') ? 'down' : states.includes('degraded') ? 'degraded' : 'ok';
  return { status, role, version: process.env.npm_package_version ?? '0.1.0', processing_region: deps.config.PROCESSING_REGION, dependencies, projections };
}

/** SMTP: the server accepts a connection (no message, no login); the outbox: its directory is writable. */
async function mailReachable(config: AppDeps['config']): Promise<void> {
  if (!config.SMTP_URL) {
    await fs.mkdir(`${config.DATA_DIR}/outbox`, { recursive: true });
    await fs.access(`${config.DATA_DIR}/outbox`, fs.constants.W_OK);
    return;
  }
  const url = new URL(config.SMTP_URL);
  const port = Number(url.port || (url.protocol === 'smtps:' ? 465 : 587));
  await new Promise<void>((resolve, reject) => {
    const socket = net.connect({ host: url.hostname, port });
    socket.setTimeout(PROBE_DEADLINE_MS, () => socket.destroy(new Error(`no answer from ${url.hostname}:${port}`)));
    socket.once('connect', () => (socket.end(), resolve()));
    socket.once('error', reject);
  });
}

/** How long a dependency may take to answer a probe before it counts as slow. */
const PROBE_DEADLINE_MS = 2000;

/**
 * A dependency that answers is 'ok'; one that fails is 'down'; one that has not answered by the
 * deadline is 'degraded' (slow), not 'down'. On a loaded machine, and while start-up catches the
 * read models up, a healthy database can take seconds to answer, and a 503 for it would have an
 * orchestrator restart a working instance (issue 21). A real outage fails the check itself
 * (refused connection, closed pool) and is 'down' at once.
 */
async function probe(adapter: string, check: () => Promise<unknown>): Promise<DependencyHealth> {
  const answer = check().then(
    () => ({ status: 'ok', adapter }) as const,
    (error: Error) => ({ status: 'down', adapter, detail: error.message }) as const,
  );
  const slow = new Promise<DependencyHealth>((resolve) => {
    // After an event-loop stall the deadline's timer and the answer are due together, and timers
    // run first: one more turn of I/O lets an answer that already arrived win.
    setTimeout(() => setImmediate(() => resolve({ status: 'degraded', adapter, detail: `no answer within ${PROBE_DEADLINE_MS / 1000} s (busy)` })), PROBE_DEADLINE_MS).unref();
  });
  return Promise.race([answer, slow]);
}
