import { fileURLToPath } from 'node:url';
import { bundleWorkflowCode, Runtime, Worker, type LogLevel, type LogMetadata, type Logger as TemporalLogger, type NativeConnection, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import type { Logger } from 'pino';
import type { TemporalActivities } from './activities.js';

/** The workflow code the worker runs in its sandbox (bundled with webpack, once per process): the top-level workflows/ folder's entry, .js when compiled. */
export const workflowsPath = fileURLToPath(new URL(import.meta.url.endsWith('.ts') ? '../../../../workflows/index.ts' : '../../../../workflows/index.js', import.meta.url));

let bundle: Promise<WorkflowBundleWithSourceMap> | undefined;

/** Bundling takes a few seconds: every worker in the process shares one bundle (every definition's workflow). */
export function workflowBundle(): Promise<WorkflowBundleWithSourceMap> {
  bundle ??= bundleWorkflowCode({ workflowsPath, logger: quietBundlerLogger }).catch((error: unknown) => {
    bundle = undefined;
    throw error;
  });
  return bundle;
}

export interface WorkerOptions {
  connection: NativeConnection;
  namespace: string;
  taskQueue: string;
  /** Every registered definition's activities (createTemporalActivities). */
  activities: TemporalActivities;
  /** Activities run at the same time (the analysis is CPU-bound: keep it near the core count). */
  concurrency: number;
  /** How long a shutdown lets running activities finish before cancelling them. */
  shutdownGraceMs: number;
}

/** One worker per process polls one task queue for both workflow and activity tasks, of every workflow type. */
export async function createWorker(options: WorkerOptions): Promise<Worker> {
  return Worker.create({
    connection: options.connection,
    namespace: options.namespace,
    taskQueue: options.taskQueue,
    workflowBundle: await workflowBundle(),
    activities: options.activities,
    maxConcurrentActivityTaskExecutions: options.concurrency,
    shutdownGraceTime: options.shutdownGraceMs,
  });
}

/**
 * Sends the SDK's own logs (worker state, activity failures) to pino instead of the console.
 * The runtime is process-wide and installed once, before the first connection.
 */
export function routeTemporalLogs(log: Logger): void {
  if (runtimeLogged) return;
  runtimeLogged = true;
  const target = log.child({ component: 'temporal' });
  const at = (level: LogLevel) => (message: string, meta?: LogMetadata) => {
    const fields = { ...meta };
    if (level === 'ERROR') target.error(fields, message);
    else if (level === 'WARN') target.warn(fields, message);
    else if (level === 'INFO') target.debug(fields, message); // worker state changes: chatter at info
    else target.trace(fields, message);
  };
  const logger: TemporalLogger = {
    log: (level, message, meta) => at(level)(message, meta),
    trace: at('TRACE'),
    debug: at('DEBUG'),
    info: at('INFO'),
    warn: at('WARN'),
    error: at('ERROR'),
  };
  try {
    Runtime.install({ logger });
  } catch {
    // Already installed by someone else in this process (a test environment): keep theirs.
  }
}
let runtimeLogged = false;

const ignore = () => undefined;
const quietBundlerLogger = { trace: ignore, debug: ignore, info: ignore, log: ignore, warn: ignore, error: (message: string, meta?: Record<string, unknown>) => console.error(message, meta) };
