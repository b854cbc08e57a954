import { runCommand, type CommandContext, type CommandOutcome, type Decider, type Folded } from './decider.js';
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import type { EventDefinition, EventOf } from './events.js';
import type { EventActor, EventStore } from './event-store.js';
import type { Call, Principal } from '../principal.js';
import type { ReadModels } from './projector.js';

/**
 * What the command runner uses of the service's dependencies (members of CoreDeps, named here:
 * the kernel does not import the module contracts, which are built on it).
 */
type RunnerDeps = { store: EventStore; readModels: ReadModels; config: Pick<Config, 'PROCESSING_REGION' | 'READ_MODEL_WAIT_MS'>; log: Logger; now: () => Date };

/** The actor an event records for a principal (an API key acts as itself, not as its owner). */
export function actorOf(principal: Principal | null): EventActor {
  if (!principal) return { type: 'anonymous', id: 'anonymous' };
  if (principal.via === 'api_key') return { type: 'api_key', id: principal.keyId! };
  if (principal.via === 'anonymous') return { type: 'anonymous', id: principal.accountId };
  return { type: 'user', id: principal.userId };
}

/**
 * The one way a command context is built. `as` overrides the actor and account, for calls
 * that act for an identity not yet authenticated (registration creates the user it acts as).
 */
/** What building a context needs: the region every event records, and the clock. */
type ContextDeps = Pick<RunnerDeps, 'now'> & { config: Pick<Config, 'PROCESSING_REGION'> };

export function commandContext(deps: ContextDeps, call: Call, as?: EventActor & { accountId: string }): CommandContext {
  return {
    accountId: as?.accountId ?? call.principal?.accountId ?? null,
    actor: as ? { type: as.type, id: as.id } : actorOf(call.principal),
    correlationId: call.correlationId,
    causationId: call.correlationId,
    processingRegion: deps.config.PROCESSING_REGION,
    now: deps.now(),
  };
}

/** Context of work the service does by itself (workflows, telemetry): a system or key actor. */
export function systemContext(
  deps: ContextDeps,
  input: { actor: EventActor; correlationId: string; accountId: string | null },
): CommandContext {
  return {
    accountId: input.accountId,
    actor: input.actor,
    correlationId: input.correlationId,
    causationId: input.correlationId,
    processingRegion: deps.config.PROCESSING_REGION,
    now: deps.now(),
  };
}

/**
 * The correlation id of the request that began a stream (its first event's), for work the service
 * does later on that request's behalf: a workflow's steps, its timers, its mail. So one id follows
 * a request through every event it sets in motion, on either engine (docs/audit.md, "Correlation").
 * A stream's first event never changes, so the answers are remembered (the `capacity` most recent).
 */
export function streamCorrelations(store: Pick<EventStore, 'readStream'>, capacity = 10_000): (stream: string, fallback: string) => Promise<string> {
  const known = new Map<string, string>();
  return async (stream, fallback) => {
    const cached = known.get(stream);
    if (cached) return cached;
    const [first] = await store.readStream(stream);
    // No event yet: nothing began it, so nothing to remember.
    if (!first) return fallback;
    if (known.size >= capacity) known.delete(known.keys().next().value!);
    known.set(stream, first.metadata.correlation_id);
    return first.metadata.correlation_id;
  };
}

/** Whether every read model includes the event at `position` within READ_MODEL_WAIT_MS. */
export async function readModelsCaughtUp(deps: Pick<RunnerDeps, 'readModels' | 'config' | 'log'>, position: bigint): Promise<boolean> {
  const fresh = await deps.readModels.waitFor(position, deps.config.READ_MODEL_WAIT_MS);
  if (!fresh) deps.log.warn({ position: String(position) }, 'read models did not catch up in time');
  return fresh;
}

/**
 * Runs a command for a call and waits for the read models to include its events
 * (read-your-writes), so the call's next query sees them. A wait that runs out marks the call
 * stale instead of failing it.
 */
export async function execute<State, Command, Catalogue extends Record<string, EventDefinition>>(
  deps: RunnerDeps,
  call: Call,
  stream: string,
  decider: Decider<State, Command, Catalogue>,
  command: Command,
  context: CommandContext = commandContext(deps, call),
  /** The stream's state when the caller holds it already (runCommand's `from`). */
  from?: Folded<State>,
): Promise<CommandOutcome<EventOf<Catalogue>, State>> {
  const outcome = await runCommand(deps.store, stream, decider, command, context, from);
  if (outcome.position !== null && !(await readModelsCaughtUp(deps, outcome.position))) call.stale = true;
  return outcome;
}
