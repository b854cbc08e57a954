import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { pino, type Logger } from 'pino';
import { allProjectors, authenticators, errorCatalogue, eventCatalogues, healthListener, modules, resourceExtensions, streamReadRules } from './modules.js';
import { InProcessWorkflowEngine } from './adapters/workflows/inprocess/engine.js';
import { systemClock, type Clock } from './adapters/workflows/clock.js';
import { ProjectionRunner } from './adapters/db/projection-runner.js';
import type { WorkflowEngine } from './core/es/workflow.js';
import { createApp } from './adapters/http/app.js';
import { serverTimeouts } from './adapters/http/timeouts.js';
import type { AppDeps, DependencyBase } from './core/module/deps.js';
import { checkAuthenticators } from './core/module/authenticator.js';
import { buildFeatureDeps } from './core/module/module.js';
import { migrateRateLimits } from './core/http/rate-limit.js';
import { ConfigError, type Config } from './core/config.js';
import { openDatabase, type Database } from './adapters/db/database.js';
import type { EventStore } from './core/es/event-store.js';
import { migrateEventStore, PostgresEventStore } from './adapters/eventstore/postgres.js';
import { createBlobStore } from './adapters/blobs/index.js';
import { UrlSigner } from './core/http/signed-urls.js';
import { KeyedLock } from './core/es/keyed-lock.js';
import { configuredOrPersistedSecret } from './core/secrets.js';
import { createMailer } from './adapters/mail/index.js';
import { boundAddress, describeComponents, localUrl } from './startup-summary.js';
import { describeAllocator } from './core/allocator.js';
import { PrincipalCache } from './core/http/principal-cache.js';
import { INPROCESS_ENGINE_LOCK, MIGRATION_LOCK, sessionLock, type SessionLock } from './adapters/db/session-lock.js';
import { InProcessRunRecorder, RUNS_CHANNEL } from './adapters/workflows/inprocess/run-recorder.js';
import { RunsTable } from './adapters/workflows/inprocess/runs-table.js';

export interface Service {
  deps: AppDeps;
  /** What this process does (ROLE): api serves HTTP; worker runs the workflows and answers only /health and /ready; all does both. */
  role: Config['ROLE'];
  /** The read-model runner itself (rebuilds, tests); use cases see it as deps.readModels. */
  projections: ProjectionRunner;
  server: http.Server;
  url: string;
  /** Requests being answered now. */
  inFlight(): number;
  stop(): Promise<void>;
}

/** Opens the stores chosen by configuration and migrates them. Shared by the server and the CLI. */
export async function openStores(config: Config, log: Logger, options: { inMemoryDatabase?: boolean } = {}) {
  fs.mkdirSync(config.DATA_DIR, { recursive: true });
  const db: Database = await openDatabase({ url: config.DATABASE_URL, dataDir: config.DATA_DIR, inMemory: options.inMemoryDatabase, sharedBuffersMb: config.PGLITE_SHARED_BUFFERS_MB });
  // The processes of a deployment (API and workers) often start together: they migrate one after
  // the other, as PostgreSQL's concurrent `create table if not exists` can collide in its catalogue.
  const migrating = db.kind === 'postgres' && config.DATABASE_URL ? await sessionLock(config.DATABASE_URL, MIGRATION_LOCK, { wait: true }) : null;
  try {
    return await migrate(config, db, log);
  } catch (error) {
    await db.close();
    throw error;
  } finally {
    await migrating?.release();
  }
}

async function migrate(config: Config, db: Database, log: Logger) {
  let store: EventStore;
  if (config.EVENTSTORE_URL) {
    // Loaded only when configured: its gRPC client costs start-up time nobody else should pay.
    store = new (await import('./adapters/eventstore/eventstoredb.js')).EventStoreDbEventStore(config.EVENTSTORE_URL);
  } else {
    await migrateEventStore(db.knex);
    // PGlite's directory belongs to this one process: no other writes its streams.
    store = new PostgresEventStore(db.knex, { exclusive: db.kind === 'pglite' });
  }
  await migrateRateLimits(db.knex);
  const projections = new ProjectionRunner(db.knex, store, allProjectors, log);
  await projections.migrate();
  // The in-process engine's runs (API processes record them, the engine's process runs them).
  if (!config.TEMPORAL_ADDRESS) await new RunsTable(db.knex).migrate();
  return { db, store, projections };
}

/** Composition root: wires the adapters, starts projectors and the HTTP server. */
export interface ServiceOptions {
  logger?: Logger;
  inMemoryDatabase?: boolean;
  /**
   * The service's time (deps.now and the in-process engine's timers); the system clock unless
   * given. Tests move it by hand to reach expiries without waiting for them.
   */
  clock?: Clock;
  /** How often the in-process engine looks for due runs and the definitions' sweeps (default 30 s). */
  workflowSweepMs?: number;
}

export async function startService(config: Config, options: ServiceOptions = {}): Promise<Service> {
  const clock = options.clock ?? systemClock;
  // Asynchronous: a line is handed to the OS without blocking the request that logged it, and
  // lines logged while a write is under way go out together in the next (a synchronous write per
  // request line blocked the event loop). Nothing is held back; pino flushes at exit.
  const log =
    options.logger ??
    pino({ level: config.LOG_LEVEL, base: { service: 'photoverify', region: config.PROCESSING_REGION } }, pino.destination({ dest: 1, sync: false }));
  const { db, store, projections } = await openStores(config, log, options);
  const role = config.ROLE;
  const runsWorkflows = role !== 'api';
  // Without Temporal, one process per database runs the workflows (two in-process engines would
  // both execute the same runs): it holds this lock for its life; a second is refused here,
  // before it takes any work (D-205).
  let engineLease: SessionLock | null = null;
  if (runsWorkflows && !config.TEMPORAL_ADDRESS && db.kind === 'postgres' && config.DATABASE_URL) {
    engineLease = await engineLock(config.DATABASE_URL).catch(async (error: unknown) => {
      await closeStores();
      throw error;
    });
    if (!engineLease) {
      await closeStores();
      throw new ConfigError([
        `ROLE=${role}: another process on this database already runs the in-process workflow engine (ROLE=all or worker without TEMPORAL_ADDRESS), and two would run the same work twice. ` +
          'Set TEMPORAL_ADDRESS on every process to share the work among several workers, or start this one with ROLE=api (it records the runs; that process executes them).',
      ]);
    }
  }
  async function closeStores() {
    await store.close();
    await db.close();
  }
  const principals = new PrincipalCache();
  principals.watch(projections);
  projections.start();
  checkAuthenticators(authenticators);
  const core: DependencyBase = {
    config,
    knex: db.knex,
    databaseKind: db.kind,
    store,
    readModels: projections,
    eventCatalogues,
    errorCatalogue,
    extensions: resourceExtensions,
    streamReadRules,
    authenticators,
    log,
    now: () => clock.now(),
    principals,
    blobs: createBlobStore(config),
    urlSigner: new UrlSigner(configuredOrPersistedSecret(undefined, config.DATA_DIR, 'url-signing-key'), config.PUBLIC_BASE_URL),
    streamLocks: new KeyedLock(),
    mailer: createMailer(config),
  };
  // What the features add for themselves (rate limiters, keys, trust anchors), from their modules.
  // A refused setting found here (a signing key that cannot sign ES256) stops the start with what it opened closed.
  const featureDeps = await buildFeatureDeps(modules, core).catch(async (error: unknown) => {
    await engineLease?.release();
    core.blobs.close?.();
    await core.mailer.close();
    await projections.stop();
    await closeStores();
    throw error;
  });
  const base: Omit<AppDeps, 'workflows'> = { ...core, ...featureDeps };
  // Every module's workflows with their activities; both engines run the same list (an API
  // process needs the list too: it names the types it may start).
  const releases: (() => Promise<void>)[] = [];
  const registrations = modules.flatMap((m) => m.workflows?.({ ...base, onStop: (release) => releases.push(release) }) ?? []);
  // Temporal when configured (loaded lazily: its native bridge is not needed in-process).
  let workflows: WorkflowEngine;
  if (config.TEMPORAL_ADDRESS) {
    workflows = new (await import('./adapters/workflows/temporal/engine.js')).TemporalWorkflowEngine(registrations, db.knex, log, {
      address: config.TEMPORAL_ADDRESS,
      namespace: config.TEMPORAL_NAMESPACE,
      taskQueue: config.TEMPORAL_TASK_QUEUE,
      concurrency: config.WORKFLOW_CONCURRENCY,
      shutdownGraceMs: config.SHUTDOWN_GRACE_MS,
      runWorker: runsWorkflows,
    });
  } else if (!runsWorkflows) {
    workflows = new InProcessRunRecorder(registrations, db.knex);
  } else {
    // Pair analyses are bounded by their thread pool (WORKFLOW_CONCURRENCY); the runs around them are light.
    const engine = new InProcessWorkflowEngine(registrations, db.knex, log, { concurrency: config.WORKFLOW_RUN_CONCURRENCY, clock, sweepMs: options.workflowSweepMs ?? config.WORKFLOW_SWEEP_MS, crashAt: config.CRASH_AT });
    workflows = engine;
    if (engineLease) {
      // Runs recorded by API processes wake this one at once; the sweep is the backstop.
      engineLease.client.on('notification', () => void engine.resumeRecorded().catch((error) => log.error({ err: error }, 'could not resume recorded workflow runs')));
      await engineLease.client.query(`listen ${RUNS_CHANNEL}`);
      // Another process may take the lock once it is lost: this one stops executing, so nothing runs twice.
      engineLease.onLost((error) => void engine.halt(new Error(`lost the in-process engine lock with its database connection (${error.message}); restart this process`)));
    }
  }
  const deps: AppDeps = { ...base, workflows };
  // A worker serves no public HTTP: a small listener answers health and readiness on PORT.
  let ready = false;
  const handler = role === 'worker' ? healthListener(deps, () => ready) : createApp(deps, modules, errorCatalogue).app;
  const timeouts = serverTimeouts(config.MAX_UPLOAD_BYTES);
  const server = http.createServer({ connectionsCheckingInterval: timeouts.connectionsCheckingInterval }, handler);
  // Counted from the first request (health answers before start-up ends), so a shutdown can say what it waits for.
  let inFlight = 0;
  server.on('request', (_req, res) => {
    inFlight++;
    res.once('close', () => inFlight--);
  });
  // Sized for the largest upload on a slow link; headers and stalled bodies are bounded much tighter (adapters/http/timeouts.ts).
  server.requestTimeout = timeouts.requestTimeout;
  server.headersTimeout = timeouts.headersTimeout;
  // Longer than clients' and proxies' own idle timeouts, so the server never closes a keep-alive
  // socket at the moment a client reuses it (ECONNRESET under load).
  server.keepAliveTimeout = timeouts.keepAliveTimeout;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.PORT, config.HOST, resolve);
  });
  const address = server.address() as AddressInfo;
  // The address to connect to from this machine (tests, the signer's rebase): loopback for a wildcard bind.
  const url = localUrl(address, address.family === 'IPv6' ? '[::1]' : '127.0.0.1');
  // A worker's links must name the API, never its own health listener.
  if (config.PORT === 0 && role !== 'worker') deps.urlSigner.rebase(url);
  // Resuming unfinished verifications waits for the read models that say which those are.
  await projections.waitFor(await store.headPosition(), config.READ_MODEL_WAIT_MS);
  await workflows.open();
  ready = true;
  const bound = boundAddress(address);
  const components = { role: describeRole(config), ...describeComponents(config) };
  const allocator = describeAllocator();
  if (!allocator.tuned) log.warn({ allocator: allocator.text }, `memory allocator: ${allocator.text}`);
  log.info(
    { address: bound, url: localUrl(address), publicBaseUrl: config.PUBLIC_BASE_URL, dataDir: config.DATA_DIR, ...components, allocator: allocator.text },
    `photoverify listening on ${bound} (${localUrl(address)}); ${Object.entries(components).map(([name, value]) => `${name.replace('_', ' ')}: ${value}`).join('; ')}`,
  );

  let stopping: Promise<void> | undefined;
  const stop = () =>
    (stopping ??= (async () => {
      // Stop accepting, let in-flight requests finish, then close idle keep-alive sockets.
      // Sockets that finish a response during the grace period go idle, not closed: sweep them.
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      const sweep = setInterval(() => server.closeIdleConnections(), 50);
      const grace = setTimeout(() => {
        log.warn({ graceMs: config.SHUTDOWN_GRACE_MS }, 'shutdown grace period over: closing connections with requests still running');
        server.closeAllConnections();
      }, config.SHUTDOWN_GRACE_MS);
      server.closeIdleConnections();
      await closed;
      clearInterval(sweep);
      clearTimeout(grace);
      log.info('http server closed: in-flight requests drained; draining workflow steps');
      await workflows.stop(); // running activities finish; runs stay recorded for the next start
      log.info('workflow steps drained');
      // Only once nothing executes here may another process take the engine over.
      await engineLease?.release();
      for (const release of releases) await release();
      await base.mailer.close();
      base.blobs.close?.();
      await projections.stop();
      await closeStores();
      log.info('photoverify stopped');
    })());

  return { deps, role, projections, server, url, stop, inFlight: () => inFlight };
}

/** How long a start waits for the engine lock before refusing: a SIGKILLed predecessor's session may still be closing. */
const ENGINE_LOCK_PATIENCE_MS = 10_000;

/** The in-process engine's lock, tried until ENGINE_LOCK_PATIENCE_MS has passed; null when another process keeps it. */
async function engineLock(url: string): Promise<SessionLock | null> {
  const deadline = Date.now() + ENGINE_LOCK_PATIENCE_MS;
  for (;;) {
    const lock = await sessionLock(url, INPROCESS_ENGINE_LOCK, { wait: false });
    if (lock || Date.now() >= deadline) return lock;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/** The role in the start-up line: what this process does, and where the workflows run. */
function describeRole(config: Config): string {
  const engine = config.TEMPORAL_ADDRESS ? `Temporal task queue ${config.TEMPORAL_TASK_QUEUE}` : 'the in-process engine';
  if (config.ROLE === 'api') return `api (HTTP; workflows started on ${engine}, run by the workers)`;
  if (config.ROLE === 'worker') return `worker (workflows on ${engine}; HTTP: /health and /ready only)`;
  return `all (HTTP and workflows on ${engine})`;
}
