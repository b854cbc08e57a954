/**
 * The event store port. Two adapters implement it (PostgreSQL/PGlite and EventStoreDB) and
 * one contract suite (test/contract/eventstore.test.ts) runs against each.
 */

export interface EventActor {
  type: 'user' | 'api_key' | 'anonymous' | 'system';
  id: string;
}

export interface EventMetadata {
  account_id: string | null;
  actor: EventActor;
  /** The event or command that caused this one. */
  causation_id: string;
  /** Shared by everything one request or workflow set in motion. */
  correlation_id: string;
  /** Where the work that produced this event ran (EU-only evidence). */
  processing_region: string;
  occurred_at: string;
}

export interface NewEvent {
  id: string;
  type: string;
  /** Schema version of `data`, so old events can be upcast when a schema evolves. */
  version: number;
  data: Record<string, unknown>;
  metadata: EventMetadata;
}

export interface StoredEvent extends NewEvent {
  stream: string;
  /** 0-based position of the event in its stream. */
  revision: number;
  /** Position in the global order. Strictly increasing; contiguous when the adapter says so. */
  position: bigint;
  recorded_at: string;
  /** `contentHash` of the event (src/core/audit/hash-chain.ts, docs/audit.md), computed at append time. */
  content_hash: string;
  /** The link hash: chains `content_hash` to the stream's previous event (`linkHash`). */
  hash: string;
  /** The `hash` of the stream's event at revision - 1; null at revision 0. */
  previous_hash: string | null;
}

/** 'no_stream': the stream must not exist; a number: the stream's last revision must be this. */
export type ExpectedRevision = number | 'no_stream' | 'any';

export interface AppendResult {
  /** Revision of the last appended event. */
  revision: number;
  /** Global position of the last appended event. */
  position: bigint;
}

export type AppendListener = (events: readonly StoredEvent[]) => void;

export interface EventStore {
  readonly kind: 'postgres' | 'eventstoredb';
  /** True when global positions have no holes, so a reader can detect a missing event. */
  readonly contiguousPositions: boolean;
  append(stream: string, events: NewEvent[], options: { expectedRevision: ExpectedRevision }): Promise<AppendResult>;
  /** Every event of one stream in revision order; [] for a stream that does not exist. */
  readStream(stream: string): Promise<StoredEvent[]>;
  /** Events with position > after, in global order, at most `limit`. */
  readAll(options: { after: bigint; limit: number }): Promise<StoredEvent[]>;
  /** Position of the newest event (0n when empty). */
  headPosition(): Promise<bigint>;
  /**
   * Calls `listener` after each append of this process has committed, with the appended events
   * exactly as a read would return them, or [] when the adapter cannot know them without reading
   * (EventStoreDB stamps their time on its server). The read models take their next page from
   * them (D-065). Returns the unsubscribe.
   */
  onAppended(listener: AppendListener): () => void;
  close(): Promise<void>;
}

/** Position before the first event. */
export const START = 0n;
