import type { StoredEvent } from '../../core/es/event-store.js';

/** Streams kept: a few dozen cover every verification in flight (a step reads its stream, then appends to it); a pair's results make kilobytes of events. */
const CAPACITY = 64;
/** Longer streams are read each time: keeping them would cost memory for little. */
const MAX_EVENTS = 64;

/**
 * The streams this process read or appended to lately, for an event store whose database no
 * other process writes (the embedded PGlite: one process owns its directory, D-067). Each step
 * of a workflow reads the stream its previous step appended to; from here that is no query.
 *
 * A read is kept only when no append at all overlapped it (the read could have been answered
 * before the append committed; appends keep their own streams up to date, so reads rarely need
 * to); an append extends a kept stream only when it follows its last revision, and drops it
 * otherwise. Events are frozen: every reader shares them.
 */
export class StreamCache {
  private readonly streams = new Map<string, readonly StoredEvent[]>();
  /** Moves at the start and the end of every append. */
  private generation = 0;
  private appending = 0;

  /** A copy of the stream's events, or undefined when it is not kept. */
  get(stream: string): StoredEvent[] | undefined {
    const events = this.streams.get(stream);
    if (!events) return undefined;
    this.streams.delete(stream); // most recently used last
    this.streams.set(stream, events);
    return [...events];
  }

  /** Call before reading the stream; pass the ticket to `read`. */
  beginRead(): number | undefined {
    return this.appending > 0 ? undefined : this.generation;
  }

  /** The read's events, frozen; kept unless an append overlapped the read. */
  read(stream: string, ticket: number | undefined, events: StoredEvent[]): StoredEvent[] {
    const frozen = events.map(freeze);
    if (ticket !== undefined && ticket === this.generation) this.keep(stream, frozen);
    return frozen;
  }

  beginAppend(): void {
    this.appending++;
    this.generation++;
  }

  /** The append's stored events (in revision order), or null when it failed. Returns them frozen. */
  endAppend(stream: string, appended: StoredEvent[] | null): StoredEvent[] | null {
    this.appending--;
    this.generation++;
    if (!appended) {
      this.streams.delete(stream);
      return null;
    }
    const frozen = appended.map(freeze);
    const known = this.streams.get(stream);
    const follows = (known?.at(-1)?.revision ?? -1) + 1 === frozen[0]!.revision;
    if (follows && (known || frozen[0]!.revision === 0)) this.keep(stream, [...(known ?? []), ...frozen]);
    else this.streams.delete(stream);
    return frozen;
  }

  private keep(stream: string, events: readonly StoredEvent[]): void {
    this.streams.delete(stream);
    if (events.length === 0 || events.length > MAX_EVENTS) return;
    this.streams.set(stream, events);
    if (this.streams.size > CAPACITY) this.streams.delete(this.streams.keys().next().value!);
  }
}

function freeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    for (const inner of Object.values(value)) freeze(inner);
    Object.freeze(value);
  }
  return value;
}
