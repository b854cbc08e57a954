import type { Knex } from 'knex';
import type { StoredEvent } from './event-store.js';

/**
 * A read-model projector owns a family of tables. `apply` runs inside the transaction that
 * also moves the projector's checkpoint, and must be idempotent (an upsert guarded by what
 * the row already reflects), so a replayed event changes nothing.
 */
export interface Projector {
  name: string;
  /** Bump when the tables or the handlers change: the runner then rebuilds this read model. */
  version: number;
  /** Dropped in this order on rebuild. */
  tables: readonly string[];
  migrate(knex: Knex): Promise<void>;
  apply(trx: Knex.Transaction, event: StoredEvent): Promise<void>;
  /**
   * Optional: applies consecutive events at once, in fewer statements than one `apply` each
   * (the runner then hands it each page's events beyond the checkpoint, in order). It must leave
   * the rows `apply` would leave applying them in turn; the checkpoint moves with it, so it is
   * never given an event its rows already reflect.
   */
  applyAll?(trx: Knex.Transaction, events: readonly StoredEvent[]): Promise<void>;
}

/**
 * The rows matching `key` that an event at `position` may still change: those whose
 * `last_position` is older. Guarding every update and delete with it is what makes a replayed
 * event change nothing.
 */
export const unapplied = (trx: Knex.Transaction, table: string, key: Record<string, unknown>, position: string): Knex.QueryBuilder =>
  trx(table).where(key).andWhere('last_position', '<', position);

/**
 * A row's first event: inserts `row` (keyed by its `id`) unless it is there, so a replayed event
 * changes nothing, as `unapplied` guards the updates after it.
 */
export async function insertOnce(trx: Knex.Transaction, table: string, row: Record<string, unknown> & { id: string }): Promise<void> {
  await trx(table).insert(row).onConflict('id').ignore();
}

export interface ProjectorStatus {
  name: string;
  position: string;
  state: 'running' | 'stopped' | 'failed';
  error?: string;
}

/** What use cases see of the read models: read-your-writes waits and their state. */
export interface ReadModels {
  /** Whether every projector reached `position` within `timeoutMs`. */
  waitFor(position: bigint, timeoutMs: number): Promise<boolean>;
  status(): ProjectorStatus[];
  /**
   * Calls `listener` with each page of events once the read models include it, before any
   * waitFor on those positions resolves (caches of read-model rows invalidate here). Returns
   * the unsubscribe.
   */
  onApplied(listener: (events: readonly StoredEvent[]) => void): () => void;
}
