import {
  ANY,
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
import type { AppendListener, AppendResult, EventMetadata, EventStore, ExpectedRevision, NewEvent, StoredEvent } from '../../core/event-store.js';

/**
 * EventStoreDB adapter. The only file that imports the client, because the newer KurrentDB
 * client renamed options (expectedRevision -> streamState).
 *
 * Global position = the event's commit position in $all. Commit positions are ordered but not
 * contiguous, so projectors cannot detect holes by arithmetic (contiguousPositions = false);
 * EventStoreDB itself guarantees $all is read without holes.
 */
type StoredMetadata = EventMetadata & { schema_version: number };

function toPosition(after: bigint): Position | typeof ESDB_START {
  return after === 0n ? ESDB_START : { commit: after, prepare: after };
}

function toStored(resolved: ResolvedEvent | AllStreamResolvedEvent): StoredEvent | null {
  const event = resolved.event;
  if (!event || !event.isJson || event.streamId.startsWith('$')) return null;
  const { schema_version, ...metadata } = event.metadata as unknown as StoredMetadata;
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
  };
}

export class EventStoreDbEventStore implements EventStore {
  readonly kind = 'eventstoredb' as const;
  readonly contiguousPositions = false;
  private readonly client: EventStoreDBClient;
  private readonly listeners = new Set<AppendListener>();

  constructor(connectionString: string) {
    this.client = EventStoreDBClient.connectionString(connectionString);
  }

  async append(stream: string, events: NewEvent[], options: { expectedRevision: ExpectedRevision }): Promise<AppendResult> {
    const expected = options.expectedRevision;
    try {
      const result = await this.client.appendToStream(
        stream,
        events.map((event) =>
          jsonEvent({
            id: event.id,
            type: event.type,
            data: event.data,
            metadata: { ...event.metadata, schema_version: event.version },
          }),
        ),
        { expectedRevision: expected === 'any' ? ANY : expected === 'no_stream' ? NO_STREAM : BigInt(expected) },
      );
      for (const listener of this.listeners) listener([]); // the server stamped their time: readers read them
      return { revision: Number(result.nextExpectedRevision), position: result.position?.commit ?? 0n };
    } catch (error) {
      if (error instanceof WrongExpectedVersionError) {
        const actual = typeof error.actualVersion === 'bigint' ? error.actualVersion : 'no_stream';
        throw new WrongExpectedRevisionError(stream, expected === 'no_stream' || expected === 'any' ? expected : BigInt(expected), actual);
      }
      throw error;
    }
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
