import type { z } from 'zod';
import type { StoredEvent } from './event-store.js';

/**
 * A domain event type: its name, the current schema version and the zod schema of its data.
 * Stored events are parsed through the schema on the way out, so a projector never sees
 * data that does not match the type it switches on.
 */
export interface EventDefinition<T extends string = string, S extends z.ZodType = z.ZodType> {
  type: T;
  version: number;
  schema: S;
  /** Fields never shown in the audit history (secrets, hashes of secrets). */
  redact?: readonly string[];
}

export function defineEvent<T extends string, S extends z.ZodType>(
  type: T,
  schema: S,
  options: { version?: number; redact?: readonly string[] } = {},
): EventDefinition<T, S> {
  return { type, schema, version: options.version ?? 1, redact: options.redact };
}

/** The union `{ type, data }` of every event in a catalogue of definitions. */
export type EventOf<Catalogue extends Record<string, EventDefinition>> = {
  [K in keyof Catalogue]: { type: Catalogue[K]['type']; data: z.infer<Catalogue[K]['schema']> };
}[keyof Catalogue];

export type Envelope<E> = E & { stored: StoredEvent };

export class UnknownEventError extends Error {
  constructor(readonly event: Pick<StoredEvent, 'type' | 'version' | 'stream' | 'position'>) {
    super(`Event ${event.type} v${event.version} at position ${event.position} (${event.stream}) has no definition of that version.`);
    this.name = 'UnknownEventError';
  }
}

/** Parses a stored event through its catalogue; null when the type belongs to another catalogue. */
export function parseEvent<Catalogue extends Record<string, EventDefinition>>(
  catalogue: Catalogue,
  stored: StoredEvent,
): Envelope<EventOf<Catalogue>> | null {
  const definition = Object.values(catalogue).find((d) => d.type === stored.type);
  if (!definition) return null;
  if (definition.version !== stored.version) throw new UnknownEventError(stored);
  const data = definition.schema.parse(stored.data);
  return { type: stored.type, data, stored } as Envelope<EventOf<Catalogue>>;
}

export function redactedData(catalogues: readonly Record<string, EventDefinition>[], stored: StoredEvent): Record<string, unknown> {
  const definition = catalogues.flatMap((c) => Object.values(c)).find((d) => d.type === stored.type);
  if (!definition?.redact?.length) return stored.data;
  const data = { ...stored.data };
  for (const field of definition.redact) if (field in data) data[field] = '[redacted]';
  return data;
}

export function assertNever(value: never): never {
  throw new Error(`Unhandled case: ${JSON.stringify(value)}`);
}
