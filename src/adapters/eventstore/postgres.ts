import type { Knex } from 'knex';
import { WrongExpectedRevisionError } from '../../core/errors.js';
import type { AppendListener, AppendResult, EventStore, ExpectedRevision, NewEvent, StoredEvent } from '../../core/es/event-store.js';
import { contentHash, linkHash } from '../../core/audit/hash-chain.js';
import { jsonColumn } from '../../core/es/json.js';
import { StreamCache } from './stream-cache.js';

/**
 * Events in one table of the same PostgreSQL (or PGlite) database as the read models.
 *
 * Appends are serialised by a transaction-scoped advisory lock and take the next global
 * position as max+1 inside it. A later position therefore only becomes visible after every
 * earlier one has committed, and positions have no holes, so a reader can never skip an event
 * and a projector can treat a hole as corruption. Measured cost: docs/decisions/, D-005.
 *
 * An append is one statement, a PL/pgSQL function (D-064): its own transaction, the lock, the
 * revision check and the insert in one round trip instead of five (BEGIN, lock, head, insert,
 * COMMIT). Inside a function each statement reads with a fresh snapshot, so the head it reads
 * after taking the lock includes every append that held the lock before.
 *
 * Each event's content hash is computed here in TypeScript (canonical JSON is not SQL's), and the
 * function links it to the stream's previous hash under the same lock, so appends from several
 * processes chain in the order they commit (docs/audit.md).
 */
const APPEND_LOCK = 7_316_041;

/** The SQLSTATE the append function raises when the stream's revision is not the expected one; `detail` holds the revision found, `hint` the stream. */
const WRONG_REVISION = 'PV409';

const APPEND_FUNCTION = `
  create or replace function pv_append_events(p_stream text, p_expected integer, p_check boolean, p_events jsonb)
  returns setof events language plpgsql as $$
  declare
    current_revision integer;
    previous text;
    last_position bigint;
    item record;
    next_revision integer;
    link text;
  begin
    perform pg_advisory_xact_lock(${APPEND_LOCK});
    select e.revision, e.hash into current_revision, previous from events e where e.stream = p_stream order by e.revision desc limit 1;
    if p_check and current_revision is distinct from p_expected then
      raise exception 'stream % is at revision %', p_stream, coalesce(current_revision::text, 'no_stream')
        using errcode = '${WRONG_REVISION}', detail = coalesce(current_revision::text, 'no_stream'), hint = p_stream;
    end if;
    select coalesce(max(position), 0) into last_position from events;
    -- The chain is sequential: each event's link hash is the next one's previous hash
    -- (hash-chain.ts linkHash, written again here so it runs under the lock).
    for item in select e.event, e.n::integer as n from jsonb_array_elements(p_events) with ordinality as e(event, n) loop
      next_revision := coalesce(current_revision, -1) + item.n;
      link := encode(sha256(convert_to(coalesce(previous, '') || chr(10) || p_stream || chr(10) || next_revision::text || chr(10) || (item.event->>'content_hash'), 'UTF8')), 'hex');
      return query
        insert into events (position, id, stream, revision, type, version, data, metadata, content_hash, hash, previous_hash)
        values (last_position + item.n, (item.event->>'id')::uuid, p_stream, next_revision, item.event->>'type', (item.event->>'version')::integer,
                item.event->'data', item.event->'metadata', item.event->>'content_hash', link, previous)
        returning *;
      previous := link;
    end loop;
  end $$`;

/** p_expected is null with p_check for 'no_stream' (no revision yet), and ignored without it ('any'). */
// Not a named statement: planning a function call is nothing, and on PGlite a named one would
// switch the session to generic plans and the projection pass after it back (D-072).
const APPEND_SQL = 'select * from pv_append_events(?, ?, ?, ?::jsonb)';

/**
 * Several streams' appends in one statement (one transaction): the same function once per
 * stream, in the order given, each under the append lock it takes again (bulk loads: the bench's
 * seeding). Inside one statement each call's queries still read with a fresh snapshot, so each
 * call sees the rows of the calls before it.
 */
const APPEND_STREAMS_SQL = `select r.* from jsonb_array_elements(?::jsonb) with ordinality as b(item, n)
  cross join lateral pv_append_events(b.item->>'stream', (b.item->>'expected')::integer, (b.item->>'check')::boolean, b.item->'events') as r
  order by r.position`;

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
      content_hash text not null,
      hash text not null,
      previous_hash text,
      unique (stream, revision)
    )`);
  // Two processes replacing the function at once fail ("tuple concurrently updated"): the
  // append lock orders them (and any append waits for the new definition). The chain of an
  // older database is completed under the same lock, so no append interleaves with it.
  await knex.transaction(async (trx) => {
    await trx.raw('select pg_advisory_xact_lock(?)', [APPEND_LOCK]);
    await chainEventsOfEarlierVersions(trx);
    await trx.raw(APPEND_FUNCTION);
  });
}

/** Rows the chain backfill reads and writes per statement. */
const BACKFILL_PAGE = 500;

/**
 * A database written before the hash chain (issue 25) has no hash columns: adds them, chains
 * every stored event in revision order per stream exactly as an append would have, then makes
 * the hashes required. Runs once: afterwards the columns exist and are not null.
 */
async function chainEventsOfEarlierVersions(trx: Knex.Transaction): Promise<void> {
  const { rows } = await trx.raw<{ rows: { is_nullable: string }[] }>(
    `select is_nullable from information_schema.columns where table_schema = current_schema() and table_name = 'events' and column_name = 'hash'`,
  );
  if (rows[0]?.is_nullable === 'NO') return;
  await trx.raw('alter table events add column if not exists content_hash text, add column if not exists hash text, add column if not exists previous_hash text');
  let after: { stream: string; revision: number } | null = null;
  let previous: string | null = null;
  for (;;) {
    const query = trx<EventRow>('events').orderBy([{ column: 'stream' }, { column: 'revision' }]).limit(BACKFILL_PAGE);
    if (after) query.whereRaw('(stream, revision) > (?, ?)', [after.stream, after.revision]);
    const page: EventRow[] = await query;
    if (page.length === 0) break;
    const links: [string, string, string, string | null][] = [];
    for (const row of page) {
      const event = { id: row.id, type: row.type, version: Number(row.version), data: jsonColumn<Record<string, unknown>>(row.data), metadata: jsonColumn(row.metadata) };
      const revision = Number(row.revision);
      const follows = row.stream === after?.stream && revision === after.revision + 1;
      if (revision !== 0 && !follows) throw new Error(`Stream ${row.stream} has no event at revision ${revision - 1}: its hash chain cannot be built.`);
      const previousHash = revision === 0 ? null : previous;
      const content = contentHash(event);
      const hash = linkHash(previousHash, row.stream, revision, content);
      links.push([String(row.position), content, hash, previousHash]);
      after = { stream: row.stream, revision };
      previous = hash;
    }
    await trx.raw(
      `update events as e set content_hash = v.content_hash, hash = v.hash, previous_hash = v.previous_hash
       from (values ${links.map(() => '(?::bigint, ?, ?, ?)').join(', ')}) as v(position, content_hash, hash, previous_hash)
       where e.position = v.position`,
      links.flat(),
    );
  }
  await trx.raw('alter table events alter column content_hash set not null, alter column hash set not null');
}

/** What the append function takes per event: the event and its content hash (the function links it). */
function payloadOf(events: readonly NewEvent[]) {
  return events.map((event) => ({ id: event.id, type: event.type, version: event.version, data: event.data, metadata: event.metadata, content_hash: contentHash(event) }));
}

/** The append function's wrong-revision exception as the port's error; any other error as it is. */
function wrongRevision(error: unknown, stream: string, expected: ExpectedRevision): unknown {
  const { code, detail } = error as { code?: string; detail?: string };
  if (code !== WRONG_REVISION) return error;
  return new WrongExpectedRevisionError(stream, expected === 'no_stream' || expected === 'any' ? expected : BigInt(expected), detail === 'no_stream' || detail === undefined ? 'no_stream' : BigInt(detail));
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
  content_hash: string;
  hash: string;
  previous_hash: string | null;
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
    content_hash: row.content_hash,
    hash: row.hash,
    previous_hash: row.previous_hash,
  };
}

export class PostgresEventStore implements EventStore {
  readonly kind = 'postgres' as const;
  readonly contiguousPositions = true;

  private readonly listeners = new Set<AppendListener>();
  private readonly cache: StreamCache | undefined;

  /**
   * `exclusive`: no other process writes this database (the embedded PGlite), so the streams
   * this process appended to are kept and read back without a query (D-067).
   */
  constructor(
    private readonly knex: Knex,
    options: { exclusive?: boolean } = {},
  ) {
    this.cache = options.exclusive ? new StreamCache() : undefined;
  }

  async append(stream: string, events: NewEvent[], options: { expectedRevision: ExpectedRevision }): Promise<AppendResult> {
    if (events.length === 0) throw new Error('append needs at least one event');
    const expected = options.expectedRevision;
    let rows: EventRow[];
    this.cache?.beginAppend();
    try {
      ({ rows } = await this.knex
        .raw<{ rows: EventRow[] }>(APPEND_SQL, [stream, typeof expected === 'number' ? expected : null, expected !== 'any', JSON.stringify(payloadOf(events))]));
    } catch (error) {
      this.cache?.endAppend(stream, null);
      throw wrongRevision(error, stream, expected);
    }
    const stored = rows.map(toStored).sort((a, b) => (a.position < b.position ? -1 : 1));
    const appended = this.cache?.endAppend(stream, stored) ?? stored;
    const last = appended.at(-1)!;
    for (const listener of this.listeners) listener(appended);
    return { revision: last.revision, position: last.position };
  }

  /**
   * Appends to several streams in one statement, all or nothing, each stream's events checked
   * and chained exactly as `append` does (the same function; bulk loads such as the bench's
   * seeding, which would otherwise pay a round trip per stream). A wrong expected revision fails
   * the whole batch with the stream it names.
   */
  async appendStreams(batch: readonly { stream: string; events: NewEvent[]; expectedRevision: ExpectedRevision }[]): Promise<StoredEvent[]> {
    if (batch.length === 0) return [];
    if (batch.some((item) => item.events.length === 0)) throw new Error('append needs at least one event');
    const items = batch.map(({ stream, events, expectedRevision: expected }) => ({ stream, expected: typeof expected === 'number' ? expected : null, check: expected !== 'any', events: payloadOf(events) }));
    let rows: EventRow[];
    this.cache?.beginAppend();
    try {
      ({ rows } = await this.knex.raw<{ rows: EventRow[] }>(APPEND_STREAMS_SQL, [JSON.stringify(items)]));
    } catch (error) {
      this.cache?.endAppend(batch[0]!.stream, null);
      // The function names the stream it refused in the exception's hint.
      const stream = (error as { hint?: string }).hint;
      const failed = batch.find((item) => item.stream === stream) ?? batch[0]!;
      throw wrongRevision(error, failed.stream, failed.expectedRevision);
    }
    const stored = rows.map(toStored);
    const byStream = new Map<string, StoredEvent[]>();
    for (const event of stored) byStream.set(event.stream, [...(byStream.get(event.stream) ?? []), event]);
    const appended: StoredEvent[] = [];
    let first = true;
    for (const [stream, events] of byStream) {
      if (!first) this.cache?.beginAppend();
      first = false;
      appended.push(...(this.cache?.endAppend(stream, events) ?? events));
    }
    appended.sort((a, b) => (a.position < b.position ? -1 : 1));
    for (const listener of this.listeners) listener(appended);
    return appended;
  }

  onAppended(listener: AppendListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  async readStream(stream: string): Promise<StoredEvent[]> {
    const kept = this.cache?.get(stream);
    if (kept) return kept;
    const ticket = this.cache?.beginRead();
    const rows = await this.knex<EventRow>('events').where({ stream }).orderBy('revision');
    const events = rows.map(toStored);
    return this.cache ? this.cache.read(stream, ticket, events) : events;
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
