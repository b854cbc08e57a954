import { systemContext } from '../../core/es/commands.js';
import type { AppDeps } from '../../core/module/deps.js';
import { ValidationError } from '../../core/errors.js';
import type { StoredEvent } from '../../core/es/event-store.js';
import { ActivityError } from '../../core/es/workflow.js';
import { recordMail, type OutgoingMail } from './use-cases.js';

/**
 * A recovery workflow's step that queues a message its feature owes (a share invitation, an
 * account invitation, a submission notice) which a crash left unqueued. The service acts, for the
 * request that caused the message: its correlation id and, as causation, the event that made the
 * message owed. An address the mail feature refuses is a non-retryable failure: retrying cannot
 * make it valid.
 */
export async function queueOwedMail(
  deps: Pick<AppDeps, 'store' | 'blobs' | 'config' | 'now'>,
  owed: { mail: OutgoingMail; cause: StoredEvent },
  recoveryActorId: string,
): Promise<'queued'> {
  const context = {
    ...systemContext(deps, { actor: { type: 'system', id: recoveryActorId }, correlationId: owed.cause.metadata.correlation_id, accountId: owed.mail.accountId }),
    causationId: owed.cause.id,
  };
  try {
    await recordMail(deps, context, owed.mail);
  } catch (error) {
    if (error instanceof ValidationError) throw new ActivityError('InvalidMail', error.message, { nonRetryable: true });
    throw error;
  }
  return 'queued';
}
