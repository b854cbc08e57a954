import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { pino, type Logger } from 'pino';
import { allProjectors, authenticators, errorCatalogue, eventCatalogues, modules, resourceExtensions } from './modules.js';
import { InProcessWorkflowEngine } from './adapters/workflows/inprocess/engine.js';
import { systemClock, type Clock } from './adapters/workflows/clock.js';
import { ProjectionRunner } from './adapters/db/projection-runner.js';
import type { WorkflowEngine } from './core/workflow.js';
import { createApp } from './adapters/http/app.js';
import type { AppDeps, DependencyBase } from './core/deps.js';
import { checkAuthenticators } from './core/authenticator.js';
import { buildFeatureDeps } from './core/module.js';
import { migrateRateLimits } from './core/rate-limit.js';
import type { Config } from './core/config.js';
import { openDatabase, type Database } from './adapters/db/database.js';
import type { EventStore } from './core/event-store.js';
import { migrateEventStore, PostgresEventStore } from './adapters/eventstore/postgres.js';
import { createBlobStore } from './adapters/blobs/index.js';
import { UrlSigner } from './core/signed-urls.js';
import { KeyedLock } from './core/keyed-lock.js';
import { configuredOrPersistedSecret } from './core/secrets.js';
import { createMailer } from './adapters/mail/index.js';
import { boundAddress, describeComponents, localUrl } from './startup-summary.js';
import { describeAllocator } from './core/allocator.js';
import { PrincipalCache } from './core/principal-cache.js';

export interface Service {
  deps: AppDeps;
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
    extensions: resourceExtensions,
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
  const base: Omit<AppDeps, 'workflows'> = { ...core, ...(await buildFeatureDeps(modules, core)) };
  // Every module's workflows with their activities; both engines run the same list.
  const releases: (() => Promise<void>)[] = [];
  const registrations = modules.flatMap((m) => m.workflows?.({ ...base, onStop: (release) => releases.push(release) }) ?? []);
  // Temporal when configured (loaded lazily: its native bridge is not needed in-process).
  const workflows: WorkflowEngine = config.TEMPORAL_ADDRESS
    ? new (await import('./adapters/workflows/temporal/engine.js')).TemporalWorkflowEngine(registrations, db.knex, log, {
        address: config.TEMPORAL_ADDRESS,
        namespace: config.TEMPORAL_NAMESPACE,
        taskQueue: config.TEMPORAL_TASK_QUEUE,
        concurrency: config.WORKFLOW_CONCURRENCY,
        shutdownGraceMs: config.SHUTDOWN_GRACE_MS,
      })
    : // Pair analyses are bounded by their thread pool (WORKFLOW_CONCURRENCY); the runs around them are light.
      new InProcessWorkflowEngine(registrations, db.knex, log, { concurrency: config.WORKFLOW_RUN_CONCURRENCY, clock, sweepMs: options.workflowSweepMs ?? config.WORKFLOW_SWEEP_MS, crashAt: config.CRASH_AT });
  const deps: AppDeps = { ...base, workflows };
  const { app } = createApp(deps, modules, errorCatalogue);
  const server = http.createServer(app);
  // Counted from the first request (health answers before start-up ends), so a shutdown can say what it waits for.
  let inFlight = 0;
  server.on('request', (_req, res) => {
    inFlight++;
    res.once('close', () => inFlight--);
  });
  server.requestTimeout = 10 * 60_000;
  // Longer than clients' and proxies' own idle timeouts, so the server never closes a keep-alive
  // socket at the moment a client reuses it (ECONNRESET under load).
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 66_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.PORT, config.HOST, resolve);
  });
  const address = server.address() as AddressInfo;
  // The address to connect to from this machine (tests, the signer's rebase): loopback for a wildcard bind.
  const url = localUrl(address, address.family === 'IPv6' ? '[::1]' : '127.0.0.1');
  if (config.PORT === 0) deps.urlSigner.rebase(url);
  // Resuming unfinished verifications waits for the read models that say which those are.
  await projections.waitFor(await store.headPosition(), config.READ_MODEL_WAIT_MS);
  await workflows.open();
  const bound = boundAddress(address);
  const components = describeComponents(config);
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
      for (const release of releases) await release();
      await base.mailer.close();
      base.blobs.close?.();
      await projections.stop();
      await store.close();
      await db.close();
      log.info('photoverify stopped');
    })());

  return { deps, projections, server, url, stop, inFlight: () => inFlight };
}
