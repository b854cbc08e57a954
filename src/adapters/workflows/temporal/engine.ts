import { Client, Connection, WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import { NativeConnection, type Worker } from '@temporalio/worker';
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { EngineHealth, WorkflowEngine } from '../../../core/workflow.js';
import type { VerificationActivities } from '../../../features/verifications/activities.js';
import { createTemporalActivities } from './activities.js';
import { VERIFICATION_WORKFLOW, workflowIdFor } from './shared.js';
import { createVerificationWorker, routeTemporalLogs } from './worker.js';
import type { verificationWorkflow } from './workflows.js';

const SWEEP_MS = 30_000;
/** Reconnection back-off while the server is unreachable: 1 s doubling to 30 s. */
const RETRY_FIRST_MS = 1_000;
const RETRY_MAX_MS = 30_000;

export interface TemporalEngineOptions {
  address: string;
  namespace: string;
  taskQueue: string;
  /** Activities this process runs at the same time. */
  concurrency: number;
  shutdownGraceMs: number;
}

/**
 * Runs verification workflows on a Temporal server. This process is both a client (it starts
 * `verification-<id>` workflows) and a worker (it runs them and their activities). The workflow
 * id makes submission idempotent: a running workflow is reused, a completed one is not started
 * again, and only a failed/cancelled/terminated one may be started anew (the sweep's way of
 * recovering a workflow that died without recording an outcome).
 */
export class TemporalWorkflowEngine implements WorkflowEngine {
  readonly kind = 'temporal' as const;
  private readonly tracked = new Map<string, Promise<void>>();
  /** Submitted before the client was connected (the HTTP server opens first): started once it is. */
  private readonly early = new Set<string>();
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
    private readonly activities: VerificationActivities,
    private readonly knex: Knex,
    private readonly log: Logger,
    private readonly options: TemporalEngineOptions,
  ) {}

  /**
   * Connects and starts the worker. A server that cannot be reached does not stop the service:
   * uploads are accepted and queued, health reports `degraded`, and the engine keeps trying in
   * the background; the sweep then submits everything that waited.
   */
  async start(): Promise<void> {
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
    const nativeConnection = await NativeConnection.connect({ address });
    let clientConnection: Connection | undefined;
    try {
      clientConnection = await Connection.connect({ address });
      this.worker = await createVerificationWorker({
        connection: nativeConnection,
        namespace,
        taskQueue,
        activities: createTemporalActivities(this.activities, this.log),
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
    for (const id of this.early) this.submit(id);
    this.early.clear();
    await this.sweep();
    this.sweepTimer = setInterval(() => void this.sweep().catch((error) => this.log.error({ err: error }, 'workflow sweep failed')), SWEEP_MS);
    this.sweepTimer.unref();
  }

  /** Starts (or joins) the verification's workflow; a no-op for one already started or finished. */
  submit(id: string): void {
    if (this.stopped || this.tracked.has(id)) return;
    if (!this.client) {
      this.early.add(id);
      return;
    }
    const run = this.startAndFollow(this.client, id).finally(() => this.tracked.delete(id));
    this.tracked.set(id, run);
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
    await Promise.allSettled(this.tracked.values());
    await this.nativeConnection?.close();
  }

  /** Resolves when every workflow this process started (or joined) has finished. */
  async idle(): Promise<void> {
    while (this.tracked.size > 0) await Promise.allSettled(this.tracked.values());
  }

  async health(): Promise<EngineHealth> {
    const adapter = `temporal ${this.options.address}/${this.options.namespace}`;
    if (this.connectError) {
      return { status: 'degraded', adapter, detail: `server unreachable, reconnecting; uploads are queued (${this.connectError.message})` };
    }
    const state = this.worker?.getState();
    const connection = this.clientConnection;
    if (this.workerError || state !== 'RUNNING' || !connection) {
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

  private async startAndFollow(client: Client, id: string): Promise<void> {
    try {
      const handle = await client.workflow.start<typeof verificationWorkflow>(VERIFICATION_WORKFLOW, {
        workflowId: workflowIdFor(id),
        taskQueue: this.options.taskQueue,
        args: [id],
        workflowIdReusePolicy: 'ALLOW_DUPLICATE_FAILED_ONLY',
        workflowIdConflictPolicy: 'USE_EXISTING',
      });
      const outcome = await handle.result();
      this.log.debug({ verification: id, outcome }, 'verification workflow finished');
    } catch (error) {
      if (error instanceof WorkflowExecutionAlreadyStartedError) return; // finished before: nothing to do
      if (this.stopped) return;
      this.log.warn({ err: error, verification: id }, 'verification workflow not started or not followed; the sweep retries');
    }
  }

  private async sweep(): Promise<void> {
    const unfinished = await this.knex('verifications').whereIn('status', ['queued', 'in_progress']).orderBy('created_at').pluck('id');
    for (const id of unfinished) this.submit(id);
  }
}
