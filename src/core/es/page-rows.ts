import type { Knex } from 'knex';

/** Rows per statement: a rebuild's page may touch thousands, and a statement's parameters are bounded. */
const CHUNK = 500;

/**
 * One table's rows touched by a page of events, folded in memory (issue 38): read in one statement
 * before the fold, written in one per kind after it (deletes, then upserts of the rows changed),
 * instead of a round trip per event. A projector's `applyAll` folds a page with it and leaves the
 * rows its `apply` leaves applying the events in turn: every row the page touches is loaded first,
 * so the fold sees what the per-event statements would see.
 *
 * Rows are as the database returns them; `stored` turns one into the values the table is written
 * with (JSON columns as text). A row removed and put again within the page (a key reused) is
 * deleted before it is inserted, as the events did.
 */
export class PageRows<Row extends Record<string, unknown>> {
  private readonly rows = new Map<string, Row | null>();
  private readonly changed = new Set<string>();
  private readonly removed = new Set<string>();

  private constructor(
    private readonly table: string,
    private readonly key: string,
    private readonly stored: (row: Row) => Record<string, unknown>,
  ) {}

  static async load<Row extends Record<string, unknown>>(trx: Knex.Transaction, table: string, key: string, ids: Iterable<string>, stored: (row: Row) => Record<string, unknown>): Promise<PageRows<Row>> {
    const rows = new PageRows<Row>(table, key, stored);
    const wanted = [...new Set(ids)];
    for (let i = 0; i < wanted.length; i += CHUNK) {
      for (const row of (await trx(table).whereIn(key, wanted.slice(i, i + CHUNK)).select('*')) as Row[]) rows.rows.set(String(row[key]), row);
    }
    return rows;
  }

  /** The row as the page's events left it so far; undefined when there is none. */
  get(id: string): Row | undefined {
    return this.rows.get(id) ?? undefined;
  }

  /** The row, new or changed, to be written. */
  put(id: string, row: Row): void {
    this.rows.set(id, row);
    this.changed.add(id);
  }

  remove(id: string): void {
    if (!this.rows.get(id)) return;
    this.rows.set(id, null);
    this.changed.delete(id);
    this.removed.add(id);
  }

  async write(trx: Knex.Transaction): Promise<void> {
    const removed = [...this.removed];
    for (let i = 0; i < removed.length; i += CHUNK) await trx(this.table).whereIn(this.key, removed.slice(i, i + CHUNK)).delete();
    const rows = [...this.changed].map((id) => this.stored(this.rows.get(id)!));
    for (let i = 0; i < rows.length; i += CHUNK) await trx(this.table).insert(rows.slice(i, i + CHUNK)).onConflict(this.key).merge();
  }
}
