import type { Knex } from 'knex';
import { WrongExpectedRevisionError } from '../../core/errors.js';
import type { AppendResult, EventStore, ExpectedRevision, NewEvent, StoredEvent } from '../../core/event-store.js';
import { jsonColumn } from '../../core/json.js';

/**
 * Events in one table of the same PostgreSQL (or PGlite) database as the read models.
 *
 * Appends are serialised by a transaction-scoped advisory lock and take the next global
 * position as max+1 inside it. A later position therefore only becomes visible after every
 * earlier one has committed, and positions have no holes, so a reader can never skip an event
 * and a projector can treat a hole as corruption. Measured cost: docs/decisions.md (D-003).
 */
const APPEND_LOCK = 7_316_041;

export async function migrateEventStore(knex: Knex): Promise<void> {
  await knex.raw(`
    create table if not exists events (
      position bigint primary key,
      id uuid not null unique,
      stream text not null,
      revision integer not null,
      type text not null,
      version integer not null,
      data jsonb not null,
      metadata jsonb not null,
      recorded_at timestamptz not null default now(),
      unique (stream, revision)
    )`);
}

interface EventRow {
  position: string | number | bigint;
  id: string;
  stream: string;
  revision: number;
  type: string;
  version: number;
  data: Record<string, unknown> | string;
  metadata: StoredEvent['metadata'] | string;
  recorded_at: Date | string;
}

function toStored(row: EventRow): StoredEvent {
  return {
    position: BigInt(row.position),
    id: row.id,
    stream: row.stream,
    revision: Number(row.revision),
    type: row.type,
    version: Number(row.version),
    data: jsonColumn(row.data),
    metadata: jsonColumn(row.metadata),
    recorded_at: new Date(row.recorded_at).toISOString(),
  };
}

export class PostgresEventStore implements EventStore {
  readonly kind = 'postgres' as const;
  readonly contiguousPositions = true;

  constructor(private readonly knex: Knex) {}

  async append(stream: string, events: NewEvent[], options: { expectedRevision: ExpectedRevision }): Promise<AppendResult> {
    if (events.length === 0) throw new Error('append needs at least one event');
    return this.knex.transaction(async (trx) => {
      await trx.raw('select pg_advisory_xact_lock(?)', [APPEND_LOCK]);
      // The stream's last revision and the log's last position in one round trip.
      const { rows: heads } = await trx.raw<{ rows: { revision: number | null; position: string | number | null }[] }>(
        'select (select max(revision) from events where stream = ?) as revision, (select max(position) from events) as position',
        [stream],
      );
      const current = heads[0]?.revision ?? null;
      const expected = options.expectedRevision;
      if (expected !== 'any') {
        const matches = expected === 'no_stream' ? current === null : current === expected;
        if (!matches) throw new WrongExpectedRevisionError(stream, expected === 'no_stream' ? expected : BigInt(expected), current === null ? 'no_stream' : BigInt(current));
      }
      let position = BigInt(heads[0]?.position ?? 0);
      let revision = current ?? -1;
      const rows = events.map((event) => {
        position += 1n;
        revision += 1;
        return {
          position: position.toString(),
          id: event.id,
          stream,
          revision,
          type: event.type,
          version: event.version,
          data: JSON.stringify(event.data),
          metadata: JSON.stringify(event.metadata),
        };
      });
      await trx('events').insert(rows);
      return { revision, position };
    });
  }

  async readStream(stream: string): Promise<StoredEvent[]> {
    const rows = await this.knex<EventRow>('events').where({ stream }).orderBy('revision');
    return rows.map(toStored);
  }

  async readAll({ after, limit }: { after: bigint; limit: number }): Promise<StoredEvent[]> {
    const rows = await this.knex<EventRow>('events').where('position', '>', after.toString()).orderBy('position').limit(limit);
    return rows.map(toStored);
  }

  async headPosition(): Promise<bigint> {
    const top = await this.knex('events').max<{ max: string | number | null }[]>('position as max').first();
    return BigInt(top?.max ?? 0);
  }

  /** The knex pool belongs to the caller, which closes it. */
  async close(): Promise<void> {}
}
