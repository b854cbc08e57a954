/**
 * The in-process engine's side in a ROLE=api process (issue 26): it records each started run in
 * `workflow_runs`, exactly as the engine's own `start` does, and wakes the one process that runs
 * the engine (ROLE=worker or all, holding the engine lock) with a NOTIFY on the channel it
 * listens to. It executes nothing and sweeps nothing: that process does both. A notification
 * lost (the worker restarting) costs only time: the worker's sweep finds every `running` row.
 */
import type { Knex } from 'knex';
import { checkRegistrations, type EngineHealth, type WorkflowEngine, type WorkflowRegistration } from '../../../core/es/workflow.js';
import { RunsTable } from './runs-table.js';

/** The channel the engine's process listens on for runs recorded by API processes. */
export const RUNS_CHANNEL = 'photoverify_workflow_runs';

export class InProcessRunRecorder implements WorkflowEngine {
  readonly kind = 'inprocess' as const;
  private readonly types: Set<string>;
  private readonly table: RunsTable;

  constructor(
    registrations: readonly WorkflowRegistration[],
    private readonly knex: Knex,
  ) {
    checkRegistrations(registrations);
    this.types = new Set(registrations.map((registration) => registration.definition.type));
    this.table = new RunsTable(knex);
  }

  async open(): Promise<void> {
    await this.table.migrate();
  }

  async start(type: string, id: string, input: unknown = {}): Promise<void> {
    if (!this.types.has(type)) throw new Error(`no workflow definition of type ${type}`);
    const row = await this.table.start(type, id, input);
    if (row?.status === 'running') await this.knex.raw('select pg_notify(?, ?)', [RUNS_CHANNEL, `${type}:${id}`]);
  }

  async stop(): Promise<void> {}

  /** Nothing executes here. */
  async idle(): Promise<void> {}

  async health(): Promise<EngineHealth> {
    return { status: 'ok', adapter: 'inprocess (runs recorded here, executed by the worker process)' };
  }
}
