import {
  BACKWARDS,
  END,
  EventStoreDBClient,
  FORWARDS,
  NO_STREAM,
  START as ESDB_START,
  StreamNotFoundError,
  WrongExpectedVersionError,
  jsonEvent,
  type AllStreamResolvedEvent,
  type Position,
  type ResolvedEvent,
} from '@eventstore/db-client';
import { WrongExpectedRevisionError } from '../../core/errors.js';
import type { AppendListener, AppendResult, EventMetadata, EventStore, ExpectedRevision, NewEvent, StoredEvent } from '../../core/es/event-store.js';
import { contentHash, linkHash } from '../../core/audit/hash-chain.js';

/**
 * EventStoreDB adapter. The only file that imports the client, because the newer KurrentDB
 * client renamed options (expectedRevision -> streamState).
 *
 * Global position = the event's commit position in $all. Commit positions are ordered but not
 * contiguous, so projectors cannot detect holes by arithmetic (contiguousPositions = false);
 * EventStoreDB itself guarantees $all is read without holes.
 *
 * The hash chain (docs/audit.md) is computed here, before the append, and kept in each event's
 * metadata beside the schema version: the server cannot compute it. The previous hash is read
 * from the stream's last event and the append then expects exactly that revision, so a
 * concurrent append makes this one fail (or, for 'any', retry) instead of forking the chain.
 */
type ChainFields = Pick<StoredEvent, 'content_hash' | 'hash' | 'previous_hash'>;
type StoredMetadata = EventMetadata & ChainFields & { schema_version: number };

/** How often an 'any' append retries when another writer moved the stream between its read and its append. */
const ANY_ATTEMPTS = 20;

function toPosition(after: bigint): Position | typeof ESDB_START {
  return after === 0n ? ESDB_START : { commit: after, prepare: after };
}

function toStored(resolved: ResolvedEvent | AllStreamResolvedEvent): StoredEvent | null {
  const event = resolved.event;
  if (!event || !event.isJson || event.streamId.startsWith('$')) return null;
  const { schema_version, content_hash, hash, previous_hash, ...metadata } = event.metadata as unknown as StoredMetadata;
  return {
    id: event.id,
    stream: event.streamId,
    revision: Number(event.revision),
    position: event.position?.commit ?? 0n,
    type: event.type,
    version: schema_version ?? 1,
    data: event.data as Record<string, unknown>,
    metadata,
    recorded_at: event.created.toISOString(),
    content_hash,
    hash,
    previous_hash,
  };
}

export class EventStoreDbEventStore implements EventStore {
  readonly kind = 'eventstoredb' as const;
  readonly contiguousPositions = false;
  private readonly client: EventStoreDBClient;
  private readonly listeners = new Set<AppendListener>();

  /** A connection string, or a client (the contract suite passes an in-process stand-in: no server can run here). */
  constructor(connection: string | EventStoreDBClient) {
    this.client = typeof connection === 'string' ? EventStoreDBClient.connectionString(connection) : connection;
  }

  async append(stream: string, events: NewEvent[], options: { expectedRevision: ExpectedRevision }): Promise<AppendResult> {
    if (events.length === 0) throw new Error('append needs at least one event');
    const expected = options.expectedRevision;
    for (let attempt = 1; ; attempt++) {
      const last = await this.lastEvent(stream);
      const found = last ? BigInt(last.revision) : 'no_stream';
      if (expected !== 'any' && found !== (expected === 'no_stream' ? expected : BigInt(expected))) {
        throw new WrongExpectedRevisionError(stream, expected === 'no_stream' ? expected : BigInt(expected), found);
      }
      try {
        const result = await this.client.appendToStream(stream, chained(stream, events, last), { expectedRevision: last ? BigInt(last.revision) : NO_STREAM });
        for (const listener of this.listeners) listener([]); // the server stamped their time: readers read them
        return { revision: Number(result.nextExpectedRevision), position: result.position?.commit ?? 0n };
      } catch (error) {
        if (!(error instanceof WrongExpectedVersionError)) throw error;
        // Another writer appended between the read and this append: 'any' chains after it.
        if (expected === 'any' && attempt < ANY_ATTEMPTS) continue;
        const actual = typeof error.actualVersion === 'bigint' ? error.actualVersion : 'no_stream';
        throw new WrongExpectedRevisionError(stream, expected === 'no_stream' || expected === 'any' ? expected : BigInt(expected), actual);
      }
    }
  }

  /** The stream's last event, or null when it has none. */
  private async lastEvent(stream: string): Promise<StoredEvent | null> {
    try {
      for await (const resolved of this.client.readStream(stream, { direction: BACKWARDS, fromRevision: END, maxCount: 1 })) {
        const event = toStored(resolved);
        if (event) return event;
      }
    } catch (error) {
      if (error instanceof StreamNotFoundError) return null;
      throw error;
    }
    return null;
  }

  async readStream(stream: string): Promise<StoredEvent[]> {
    const events: StoredEvent[] = [];
    try {
      for await (const resolved of this.client.readStream(stream, { direction: FORWARDS, fromRevision: ESDB_START })) {
        const event = toStored(resolved);
        if (event) events.push(event);
      }
    } catch (error) {
      if (error instanceof StreamNotFoundError) return [];
      throw error;
    }
    return events;
  }

  async readAll({ after, limit }: { after: bigint; limit: number }): Promise<StoredEvent[]> {
    const events: StoredEvent[] = [];
    // fromPosition is inclusive; ask for one more and drop the event at `after` itself.
    for await (const resolved of this.client.readAll({ direction: FORWARDS, fromPosition: toPosition(after), maxCount: limit + 1 })) {
      const event = toStored(resolved);
      if (event && event.position > after) events.push(event);
      if (events.length === limit) break;
    }
    return events;
  }

  async headPosition(): Promise<bigint> {
    for await (const resolved of this.client.readAll({ direction: 'backwards', fromPosition: END, maxCount: 50 })) {
      const event = toStored(resolved);
      if (event) return event.position;
    }
    return 0n;
  }

  onAppended(listener: AppendListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  async close(): Promise<void> {
    await this.client.dispose();
  }
}

/** The events as EventStoreDB stores them, each linked to the one before (the stream's `last` for the first). */
function chained(stream: string, events: NewEvent[], last: StoredEvent | null) {
  let previous = last?.hash ?? null;
  let revision = last ? last.revision : -1;
  return events.map((event) => {
    revision += 1;
    const content = contentHash(event);
    const hash = linkHash(previous, stream, revision, content);
    const metadata: StoredMetadata = { ...event.metadata, schema_version: event.version, content_hash: content, hash, previous_hash: previous };
    previous = hash;
    return jsonEvent({ id: event.id, type: event.type, data: event.data, metadata });
  });
}
