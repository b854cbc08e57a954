import { BACKWARDS, END, START, StreamNotFoundError, WrongExpectedVersionError, type EventStoreDBClient } from '@eventstore/db-client';

/**
 * An in-process stand-in for the EventStoreDB client, covering what the adapter calls
 * (appendToStream, readStream, readAll, dispose) with the server's semantics: optimistic
 * concurrency on the expected revision with the client's own error classes, JSON stored as bytes
 * (data and metadata come back parsed, never as the same objects), commit positions that grow
 * but are not contiguous, and the server stamping `created`. No EventStoreDB server can run on
 * this machine; with EVENTSTORE_URL set the contract suite also runs against a real one.
 */
interface Recorded {
  id: string;
  type: string;
  streamId: string;
  revision: bigint;
  data: string;
  metadata: string;
  created: Date;
  position: { commit: bigint; prepare: bigint };
}

interface EventData {
  id: string;
  type: string;
  data: unknown;
  metadata?: unknown;
}

type Expected = 'any' | 'no_stream' | 'stream_exists' | bigint;

export class EventStoreDbDouble {
  private readonly streams = new Map<string, Recorded[]>();
  private readonly log: Recorded[] = [];
  private commit = 0n;

  /** The client, as the adapter's constructor takes it. */
  asClient(): EventStoreDBClient {
    return this as unknown as EventStoreDBClient;
  }

  async appendToStream(streamName: string, events: EventData | EventData[], options: { expectedRevision?: Expected } = {}) {
    await new Promise((resolve) => setImmediate(resolve)); // a round trip: concurrent appends interleave here, as over gRPC
    const list = Array.isArray(events) ? events : [events];
    const stream = this.streams.get(streamName);
    const current = stream ? BigInt(stream.length - 1) : undefined;
    const expected = options.expectedRevision ?? 'any';
    const fits =
      expected === 'any' ||
      (expected === 'no_stream' && current === undefined) ||
      (expected === 'stream_exists' && current !== undefined) ||
      (typeof expected === 'bigint' && expected === current);
    if (!fits) throw new WrongExpectedVersionError(undefined, { streamName, expected, current: current ?? 'no_stream' } as never);
    const recorded = stream ?? [];
    for (const event of list) {
      this.commit += 7n; // ordered, with holes
      const entry: Recorded = {
        id: event.id,
        type: event.type,
        streamId: streamName,
        revision: BigInt(recorded.length),
        data: JSON.stringify(event.data),
        metadata: JSON.stringify(event.metadata ?? {}),
        created: new Date(),
        position: { commit: this.commit, prepare: this.commit },
      };
      recorded.push(entry);
      this.log.push(entry);
    }
    this.streams.set(streamName, recorded);
    return { success: true, nextExpectedRevision: BigInt(recorded.length - 1), position: { commit: this.commit, prepare: this.commit } };
  }

  async *readStream(streamName: string, options: { direction?: string; fromRevision?: bigint | typeof START | typeof END; maxCount?: number } = {}) {
    await new Promise((resolve) => setImmediate(resolve));
    const stream = this.streams.get(streamName);
    if (!stream) throw new StreamNotFoundError(undefined, streamName);
    const backwards = options.direction === BACKWARDS;
    const from = options.fromRevision ?? (backwards ? END : START);
    let events = [...stream];
    if (typeof from === 'bigint') events = events.filter((e) => (backwards ? e.revision <= from : e.revision >= from));
    if (backwards) events.reverse();
    for (const event of events.slice(0, options.maxCount ?? Infinity)) yield resolved(event);
  }

  async *readAll(options: { direction?: string; fromPosition?: { commit: bigint } | typeof START | typeof END; maxCount?: number } = {}) {
    await new Promise((resolve) => setImmediate(resolve));
    const backwards = options.direction === BACKWARDS;
    const from = options.fromPosition ?? (backwards ? END : START);
    let events = [...this.log];
    if (typeof from === 'object') events = events.filter((e) => (backwards ? e.position.commit <= from.commit : e.position.commit >= from.commit));
    if (backwards) events.reverse();
    for (const event of events.slice(0, options.maxCount ?? Infinity)) yield resolved(event);
  }

  async dispose(): Promise<void> {}
}

function resolved(event: Recorded) {
  return {
    event: {
      id: event.id,
      type: event.type,
      streamId: event.streamId,
      revision: event.revision,
      isJson: true,
      data: JSON.parse(event.data) as unknown,
      metadata: JSON.parse(event.metadata) as unknown,
      created: event.created,
      position: event.position,
    },
  };
}
