import { Client, Connection, WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import { NativeConnection, type Worker } from '@temporalio/worker';
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import { checkRegistrations, type EngineHealth, type WorkflowEngine, type WorkflowRegistration } from '../../../core/es/workflow.js';
import { createTemporalActivities } from './activities.js';
import { temporalWorkflowId, temporalWorkflowType } from './shared.js';
import { createWorker, routeTemporalLogs } from './worker.js';

const SWEEP_MS = 30_000;
/** Reconnection back-off while the server is unreachable: 1 s doubling to 30 s. */
const RETRY_FIRST_MS = 1_000;
const RETRY_MAX_MS = 30_000;
/** `start` waits this long for the server to accept; a slower start goes on in the background (the sweep is the backstop). */
const START_WAIT_MS = 5_000;

export interface TemporalEngineOptions {
  address: string;
  namespace: string;
  taskQueue: string;
  /** Activities this process runs at the same time. */
  concurrency: number;
  shutdownGraceMs: number;
  /**
   * false in a ROLE=api process (issue 26): it only starts workflows (a client), runs no worker
   * and no sweeps; the worker processes on the task queue run them and sweep.
   */
  runWorker?: boolean;
}

interface Start {
  type: string;
  id: string;
  input: unknown;
}

/** How long stop() waits for result followers after closing the client connection. */
const FOLLOWERS_GRACE_MS = 5_000;

/**
 * Runs the registered workflow definitions on a Temporal server (workflows/index.ts turns
 * each into a workflow function). This process is both a client (it starts `<type>-<id>`
 * workflows of type `<type>Workflow`) and a worker (it runs them and their activities). The
 * workflow id makes `start` idempotent: a running workflow is reused, a completed one is not
 * started again, and only a failed/cancelled/terminated one may be started anew (the sweep's
 * way of recovering a workflow that died without recording an outcome).
 */
export class TemporalWorkflowEngine implements WorkflowEngine {
  readonly kind = 'temporal' as const;
  private readonly tracked = new Map<string, Promise<void>>();
  /** Started before the client was connected (the HTTP server opens first, or the server is down): started once it is. */
  private readonly early = new Map<string, Start>();
  private readonly types: Map<string, WorkflowRegistration>;
  private client?: Client;
  private clientConnection?: Connection;
  private nativeConnection?: NativeConnection;
  private worker?: Worker;
  private running?: Promise<void>;
  private workerError?: Error;
  private sweepTimer?: NodeJS.Timeout;
  private stopped = false;
  /** Why the server could not be reached yet; set while `reconnecting` runs. */
  private connectError?: Error;
  private reconnecting?: Promise<void>;
  private wakeReconnect?: () => void;

  constructor(
    private readonly registrations: readonly WorkflowRegistration[],
    private readonly knex: Knex,
    private readonly log: Logger,
    private readonly options: TemporalEngineOptions,
  ) {
    checkRegistrations(registrations);
    this.types = new Map(registrations.map((registration) => [registration.definition.type, registration]));
  }

  /**
   * Connects and starts the worker. A server that cannot be reached does not stop the service:
   * uploads are accepted and queued, health reports `degraded`, and the engine keeps trying in
   * the background; the sweep then starts everything that waited.
   */
  async open(): Promise<void> {
    routeTemporalLogs(this.log);
    try {
      await this.connect();
    } catch (error) {
      this.connectError = error as Error;
      this.log.error({ err: error, address: this.options.address }, 'temporal server unreachable; uploads are queued and run once it answers');
      this.reconnecting = this.reconnect();
    }
  }

  private async reconnect(): Promise<void> {
    for (let delay = RETRY_FIRST_MS; !this.stopped; delay = Math.min(delay * 2, RETRY_MAX_MS)) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, delay);
        this.wakeReconnect = () => (clearTimeout(timer), resolve());
      });
      if (this.stopped) return;
      try {
        await this.connect();
        this.connectError = undefined;
        return;
      } catch (error) {
        this.connectError = error as Error;
        this.log.warn({ err: error, retryInMs: Math.min(delay * 2, RETRY_MAX_MS) }, 'temporal server still unreachable');
      }
    }
  }

  private async connect(): Promise<void> {
    const { address, namespace, taskQueue } = this.options;
    if (this.options.runWorker === false) {
      this.clientConnection = await Connection.connect({ address });
      this.client = new Client({ connection: this.clientConnection, namespace });
      this.log.info({ address, namespace, taskQueue }, 'temporal client started (ROLE=api: the workers run the workflows)');
      this.startEarly();
      return;
    }
    const nativeConnection = await NativeConnection.connect({ address });
    let clientConnection: Connection | undefined;
    try {
      clientConnection = await Connection.connect({ address });
      this.worker = await createWorker({
        connection: nativeConnection,
        namespace,
        taskQueue,
        activities: createTemporalActivities(this.registrations),
        concurrency: this.options.concurrency,
        shutdownGraceMs: this.options.shutdownGraceMs,
      });
    } catch (error) {
      // Nothing half-connected stays behind for the next attempt.
      await clientConnection?.close();
      await nativeConnection.close();
      throw error;
    }
    this.nativeConnection = nativeConnection;
    this.clientConnection = clientConnection;
    this.running = this.worker.run().catch((error: Error) => {
      this.workerError = error;
      this.log.error({ err: error }, 'temporal worker stopped with an error');
    });
    this.client = new Client({ connection: this.clientConnection, namespace });
    this.log.info({ address, namespace, taskQueue }, 'temporal workflow engine started');
    this.startEarly();
    await this.sweep();
    this.sweepTimer = setInterval(() => void this.sweep().catch((error) => this.log.error({ err: error }, 'workflow sweep failed')), SWEEP_MS);
    this.sweepTimer.unref();
  }

  /** Starts what was started before the client was connected. */
  private startEarly(): void {
    const early = [...this.early.values()];
    this.early.clear();
    for (const { type, id, input } of early) void this.start(type, id, input);
  }

  /**
   * Starts (or joins) the `<type>-<id>` workflow; a no-op for one already started or finished.
   * Resolves once the server accepted the start (or refused it as a duplicate), at most after
   * 5 s, or at once while the server is unreachable (held here; the definition's sweep is the
   * durable record). A failed start is logged, not thrown: the sweep retries it.
   */
  async start(type: string, id: string, input: unknown = {}): Promise<void> {
    if (!this.types.has(type)) throw new Error(`no workflow definition of type ${type}`);
    const key = temporalWorkflowId(type, id);
    if (this.stopped || this.tracked.has(key)) return;
    if (!this.client) {
      this.early.set(key, { type, id, input });
      return;
    }
    let accepted!: () => void;
    const started = new Promise<void>((resolve) => (accepted = resolve));
    const run = this.startAndFollow(this.client, { type, id, input }, accepted).finally(() => {
      accepted();
      this.tracked.delete(key);
    });
    this.tracked.set(key, run);
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([started, new Promise<void>((resolve) => (timer = setTimeout(resolve, START_WAIT_MS)))]);
    clearTimeout(timer);
  }

  /** Stops polling; running workflows stay with the server and continue on any worker. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.wakeReconnect?.();
    await this.reconnecting;
    clearInterval(this.sweepTimer);
    if (this.worker?.getState() === 'RUNNING') this.worker.shutdown();
    await this.running;
    await this.clientConnection?.close();
    // Followers only watch results that stay with the server; one caught in a client retry
    // when the connection closed must not hold shutdown: wait briefly, then leave them.
    await Promise.race([Promise.allSettled(this.tracked.values()), new Promise((resolve) => setTimeout(resolve, FOLLOWERS_GRACE_MS).unref())]);
    await this.nativeConnection?.close();
  }

  /** Resolves when every workflow this process started (or joined) has finished. */
  async idle(): Promise<void> {
    while (this.tracked.size > 0) await Promise.allSettled(this.tracked.values());
  }

  async health(): Promise<EngineHealth> {
    const runs = this.options.runWorker === false ? 'client: the workers run the workflows' : `worker on ${this.options.taskQueue}`;
    const adapter = `temporal ${this.options.address}/${this.options.namespace} (${runs})`;
    if (this.connectError) {
      return { status: 'degraded', adapter, detail: `server unreachable, reconnecting; uploads are queued (${this.connectError.message})` };
    }
    const state = this.worker?.getState();
    const connection = this.clientConnection;
    const workerDown = this.options.runWorker !== false && (this.workerError || state !== 'RUNNING');
    if (workerDown || !connection) {
      return { status: 'down', adapter, detail: this.workerError?.message ?? `worker ${state ?? 'not started'}` };
    }
    try {
      await connection.withDeadline(Date.now() + 2000, () => connection.healthService.check({}));
      return { status: 'ok', adapter };
    } catch (error) {
      // Uploads are still accepted; the sweep submits them once the server is back.
      return { status: 'degraded', adapter, detail: (error as Error).message };
    }
  }

  private async startAndFollow(client: Client, { type, id, input }: Start, accepted: () => void): Promise<void> {
    const workflowId = temporalWorkflowId(type, id);
    try {
      const handle = await client.workflow.start(temporalWorkflowType(type), {
        workflowId,
        taskQueue: this.options.taskQueue,
        args: [id, input],
        workflowIdReusePolicy: 'ALLOW_DUPLICATE_FAILED_ONLY',
        workflowIdConflictPolicy: 'USE_EXISTING',
      });
      accepted();
      const outcome = await handle.result();
      this.log.debug({ workflowId, outcome }, 'workflow finished');
    } catch (error) {
      if (error instanceof WorkflowExecutionAlreadyStartedError) return; // finished before: nothing to do
      if (this.stopped) return;
      this.log.warn({ err: error, workflowId }, 'workflow not started or not followed; the sweep retries');
    }
  }

  /** Every definition's sweep: ids the domain says are unfinished (a start for one running or finished is a no-op). */
  private async sweep(): Promise<void> {
    for (const registration of this.registrations) {
      if (!registration.sweep) continue;
      for (const { id, input } of await registration.sweep({ knex: this.knex, now: new Date() })) void this.start(registration.definition.type, id, input);
    }
  }
}
