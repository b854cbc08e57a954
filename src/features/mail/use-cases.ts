import type { CommandContext } from '../../core/decider.js';
import type { AppDeps } from '../../core/deps.js';

/** A message to send. Plain data: the caller renders subject, text and HTML. */
export interface OutgoingMail {
  /** Stable: becomes the Message-ID and the stream id (`mail-<id>`); queueing the same id again is a no-op. */
  id: string;
  to: string;
  subject: string;
  text: string;
  html: string;
  /** The account the message is sent for (the audit history's owner); null for none. */
  accountId: string | null;
}

/**
 * Records the message as queued and starts its delivery workflow. Never sends inline and never
 * fails because delivery fails (delivery retries with back-off; a final failure is an event).
 */
export async function queueMail(deps: AppDeps, context: CommandContext, mail: OutgoingMail): Promise<void> {
  void deps;
  void context;
  void mail;
  throw new Error('queueMail: not implemented yet');
}
