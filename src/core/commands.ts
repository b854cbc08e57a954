import type { Request, Response } from 'express';
import { handleCommand, type CommandContext, type CommandOutcome, type Decider } from './decider.js';
import type { EventDefinition, EventOf } from './events.js';
import type { EventActor } from './event-store.js';
import type { Principal } from '../adapters/http/auth.js';
import type { ApiDeps } from './deps.js';

export function commandContext(deps: ApiDeps, req: Request, principal: Principal | null, actorOverride?: EventActor & { accountId: string }): CommandContext {
  const requestId = String(req.id);
  const actor: EventActor = actorOverride
    ? { type: actorOverride.type, id: actorOverride.id }
    : principal
      ? principal.via === 'api_key'
        ? { type: 'api_key', id: principal.keyId! }
        : principal.via === 'anonymous'
          ? { type: 'anonymous', id: principal.accountId }
          : { type: 'user', id: principal.userId }
      : { type: 'anonymous', id: 'anonymous' };
  return {
    accountId: actorOverride?.accountId ?? principal?.accountId ?? null,
    actor,
    correlationId: requestId,
    causationId: requestId,
    processingRegion: deps.config.PROCESSING_REGION,
    now: deps.now(),
  };
}

/**
 * Runs a command and returns only once every read model includes its events
 * (read-your-writes). If the projectors do not get there within READ_MODEL_WAIT_MS the
 * answer still goes out, marked with `X-Read-Model-Stale: true`.
 */
export async function execute<State, Command, Catalogue extends Record<string, EventDefinition>>(
  deps: ApiDeps,
  res: Response,
  stream: string,
  decider: Decider<State, Command, Catalogue>,
  command: Command,
  context: CommandContext,
): Promise<CommandOutcome<EventOf<Catalogue>>> {
  const outcome = await handleCommand(deps.store, stream, decider, command, context);
  if (outcome.position !== null) {
    const fresh = await deps.projections.waitFor(outcome.position, deps.config.READ_MODEL_WAIT_MS);
    if (!fresh) {
      res.setHeader('X-Read-Model-Stale', 'true');
      deps.log.warn({ stream, position: String(outcome.position) }, 'read models did not catch up in time');
    }
  }
  return outcome;
}
