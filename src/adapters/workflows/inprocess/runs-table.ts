/**
 * The in-process engine's durable state: one `workflow_runs` row per started run (type, id,
 * input, status, its sleeps' wake times) in the service database. Everything the engine must
 * find again after a restart is written here, and only here; the engine's maps are a cache of
 * what this process is executing.
 */
import type { Knex } from 'knex';

const TABLE = 'workflow_runs';

export interface RunRow {
  type: string;
  id: string;
  input: unknown;
  status: 'running' | 'completed' | 'failed';
  /** Wake times (epoch ms) of the run's `ctx.sleep` calls, by position. */
  timers: number[];
  wakeAtMs: number | null;
}

export class RunsTable {
  private migrated?: Promise<void>;

  constructor(private readonly knex: Knex) {}

  /** Creates the table on first use (once per process; a failed attempt is tried again). */
  migrate(): Promise<void> {
    this.migrated ??= (async () => {
      await this.knex.raw(`
        create table if not exists ${TABLE} (
          type text not null,
          id text not null,
          input text not null,
          status text not null,
          timers text not null default '[]',
          wake_at_ms bigint,
          result text,
          error text,
          created_at timestamptz not null default now(),
          updated_at timestamptz not null default now(),
          primary key (type, id)
        )`);
      await this.knex.raw(`create index if not exists ${TABLE}_running on ${TABLE} (wake_at_ms) where status = 'running'`);
    })().catch((error: unknown) => {
      this.migrated = undefined;
      throw error;
    });
    return this.migrated;
  }

  /**
   * Records a started run. A run already running or completed is left as it is (and returned as
   * stored); one that failed starts afresh with the new input.
   */
  async start(type: string, id: string, input: unknown): Promise<RunRow | undefined> {
    await this.migrate();
    const stored = JSON.stringify(input ?? {});
    const [written] = await this.knex(TABLE)
      .insert({ type, id, input: stored, status: 'running', timers: '[]' })
      .onConflict(['type', 'id'])
      .merge({ input: stored, status: 'running', timers: '[]', wake_at_ms: null, error: null, result: null, updated_at: this.knex.fn.now() })
      .where(`${TABLE}.status`, 'failed')
      .returning('*');
    // Nothing written: the run exists and is running or completed (read it to resume the former).
    const row = written ?? (await this.knex(TABLE).where({ type, id }).first());
    return row ? toRunRow(row) : undefined;
  }

  /** Runs still `running` that are not suspended in a sleep ending after `horizonMs`, oldest first. */
  async due(horizonMs: number): Promise<RunRow[]> {
    await this.migrate();
    const rows = await this.knex(TABLE)
      .where({ status: 'running' })
      .andWhere((q) => {
        q.whereNull('wake_at_ms').orWhere('wake_at_ms', '<=', horizonMs);
      })
      .orderBy('created_at');
    return rows.map(toRunRow);
  }

  /** The wake times of the run's sleeps so far: a restart resumes each at the same time. */
  async saveTimers(row: RunRow, timers: readonly number[]): Promise<void> {
    await this.knex(TABLE).where({ type: row.type, id: row.id }).update({ timers: JSON.stringify(timers), updated_at: this.knex.fn.now() });
  }

  /** The run stops executing until `atMs`: the sweep resumes it shortly before. */
  async suspend(row: RunRow, atMs: number): Promise<void> {
    await this.knex(TABLE).where({ type: row.type, id: row.id }).update({ wake_at_ms: atMs, updated_at: this.knex.fn.now() });
  }

  /** The run's outcome, written only over a row still `running`. */
  async finish(row: RunRow, outcome: { status: 'completed' | 'failed'; result?: string; error?: string }): Promise<void> {
    await this.knex(TABLE)
      .where({ type: row.type, id: row.id, status: 'running' })
      .update({ ...outcome, wake_at_ms: null, updated_at: this.knex.fn.now() });
  }
}

function toRunRow(row: Record<string, unknown>): RunRow {
  return {
    type: row.type as string,
    id: row.id as string,
    input: JSON.parse(row.input as string),
    status: row.status as RunRow['status'],
    timers: JSON.parse((row.timers as string | null) ?? '[]'),
    wakeAtMs: row.wake_at_ms === null || row.wake_at_ms === undefined ? null : Number(row.wake_at_ms),
  };
}
