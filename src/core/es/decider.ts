import crypto from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { WrongExpectedRevisionError } from '../errors.js';
import type { EventActor, EventStore, ExpectedRevision, NewEvent } from './event-store.js';
import { parseEvent, type EventDefinition, type EventOf } from './events.js';
import { KeyedLock } from './keyed-lock.js';
import { assertStorableText } from '../text/text.js';

/** decide and evolve are pure: time and new ids arrive inside the command. */
export interface Decider<State, Command, Catalogue extends Record<string, EventDefinition>> {
  catalogue: Catalogue;
  initialState: () => State;
  evolve: (state: State, event: EventOf<Catalogue>) => State;
  decide: (command: Command, state: State) => EventOf<Catalogue>[];
}

/** Who is acting and on behalf of which request; becomes the metadata of every event. */
export interface CommandContext {
  accountId: string | null;
  actor: EventActor;
  correlationId: string;
  causationId: string;
  processingRegion: string;
  now: Date;
}

/** A stream's state and the revision it was folded at: what a command is decided on. */
export interface Folded<State> {
  state: State;
  revision: ExpectedRevision;
}

/**
 * `state` is the stream's state with the new events applied and `revision` the revision it
 * reflects: the next command on the stream can start from them instead of reading it again.
 */
export interface CommandOutcome<E, State = unknown> extends Folded<State> {
  events: E[];
  /** Global position of the last appended event; null when the command changed nothing. */
  position: bigint | null;
}

/**
 * Fresh decisions a command may take before it gives up. Within a process commands on one stream
 * take turns, so only other processes make an append lose; between attempts a command waits a
 * random while, up to a bound that doubles (full jitter), so racing processes spread out.
 */
export const COMMAND_ATTEMPTS = 8;
const BACKOFF_FIRST_MS = 10;
const BACKOFF_MAX_MS = 250;
const backoff = (lost: number) => sleep(Math.random() * Math.min(BACKOFF_MAX_MS, BACKOFF_FIRST_MS * 2 ** (lost - 1)));

/**
 * One lock per store (a service holds one; each stands for a process): this process's commands
 * on a stream are decided and appended one after another, so concurrent requests never make
 * each other's appends fail.
 */
const commandLocks = new WeakMap<EventStore, KeyedLock>();
function commandLock(store: EventStore): KeyedLock {
  let lock = commandLocks.get(store);
  if (!lock) commandLocks.set(store, (lock = new KeyedLock()));
  return lock;
}

/** The one state fold: a stream's events, parsed through the decider's catalogue, folded by evolve. */
export async function foldStream<State, Command, Catalogue extends Record<string, EventDefinition>>(
  store: EventStore,
  stream: string,
  decider: Decider<State, Command, Catalogue>,
): Promise<Folded<State>> {
  const history = await store.readStream(stream);
  let state = decider.initialState();
  for (const stored of history) {
    const event = parseEvent(decider.catalogue, stored);
    if (event) state = decider.evolve(state, event);
  }
  const last = history.at(-1);
  return { state, revision: last ? last.revision : 'no_stream' };
}

/**
 * Load the stream, fold it, decide, append with the revision the decision was based on.
 * Commands on one stream take turns within the process (commandLock); a writer in another
 * process makes the append fail, and the command is then decided again on fresh state after a
 * jittered pause. After COMMAND_ATTEMPTS lost races the store's WrongExpectedRevisionError
 * escapes: 503 with Retry-After, never a 409 the spec does not name.
 *
 * `from` saves the read when the caller holds the stream's state already (it just read it, or
 * it is the outcome of its previous command; a stream it is creating: the initial state at
 * 'no_stream'). The first decision is made on it; if the stream has moved since, the append
 * fails and the command is decided again on a fresh fold. A decision of nothing (or a refusal)
 * on `from` is made again on a fresh fold too, so the outcome is always the whole stream's.
 */
export async function runCommand<State, Command, Catalogue extends Record<string, EventDefinition>>(
  store: EventStore,
  stream: string,
  decider: Decider<State, Command, Catalogue>,
  command: Command,
  context: CommandContext,
  from?: Folded<State>,
): Promise<CommandOutcome<EventOf<Catalogue>, State>> {
  return commandLock(store).run(stream, async () => {
    let given = from;
    for (let folds = 0; ; ) {
      // Attempts are counted in fresh folds: a stale `from` does not use one up.
      const fresh = given === undefined;
      if (fresh) folds++;
      const { state, revision } = given ?? (await foldStream(store, stream, decider));
      given = undefined;
      let events: EventOf<Catalogue>[];
      try {
        events = decider.decide(command, state);
      } catch (error) {
        if (fresh) throw error;
        continue; // a refusal on the given state is made again on the stream
      }
      if (events.length === 0) {
        if (fresh) return { events, position: null, state, revision };
        continue; // so is a decision of nothing
      }
      try {
        const result = await store.append(stream, events.map((event) => toNewEvent(decider.catalogue, event, context)), { expectedRevision: revision });
        return { events, position: result.position, state: events.reduce(decider.evolve, state), revision: result.revision };
      } catch (error) {
        if (!(error instanceof WrongExpectedRevisionError) || folds >= COMMAND_ATTEMPTS) throw error;
        // A stale `from` is expected to lose once: the fresh fold follows at once.
        if (fresh) await backoff(folds);
      }
    }
  });
}

/**
 * Appends facts that guard no invariant (e.g. a report was viewed) without reading the stream:
 * no decider, no expected revision. Validated and stamped exactly like a command's events.
 */
export async function appendFacts<Catalogue extends Record<string, EventDefinition>>(
  store: EventStore,
  stream: string,
  catalogue: Catalogue,
  events: EventOf<Catalogue>[],
  context: CommandContext,
): Promise<{ position: bigint }> {
  const result = await store.append(stream, events.map((event) => toNewEvent(catalogue, event, context)), { expectedRevision: 'any' });
  return { position: result.position };
}

function toNewEvent(catalogue: Record<string, EventDefinition>, event: { type: string; data: unknown }, context: CommandContext): NewEvent {
  const definition = Object.values(catalogue).find((d) => d.type === event.type);
  if (!definition) throw new Error(`Event ${event.type} is not in its aggregate's catalogue`);
  assertStorableText(event.data); // PostgreSQL's JSON cannot hold NUL or a lone surrogate: a 422, not a 500 at append
  return {
    id: crypto.randomUUID(),
    type: event.type,
    version: definition.version,
    // Validating on the way in keeps malformed data out of the permanent log.
    data: definition.schema.parse(event.data) as Record<string, unknown>,
    metadata: {
      account_id: context.accountId,
      actor: context.actor,
      causation_id: context.causationId,
      correlation_id: context.correlationId,
      processing_region: context.processingRegion,
      occurred_at: context.now.toISOString(),
    },
  };
}
