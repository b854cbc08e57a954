import type { CommandContext } from '../../core/decider.js';
import { runCommand } from '../../core/decider.js';
import type { AppDeps } from '../../core/deps.js';
import { ValidationError } from '../../core/errors.js';
import { MAIL_ID_PATTERN, messageIdFor } from '../../core/mail.js';
import { mailDecider, mailStream } from './decider.js';
import { MAIL_DELIVERY_WORKFLOW_TYPE } from './workflow.js';

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

/** One address, no display name, no list: the recipient goes to the SMTP envelope as it is. */
const SINGLE_ADDRESS = /^[^\s@<>,;"]+@[^\s@<>,;"]+\.[^\s@<>,;"]+$/;

/**
 * Records the message as queued (MailQueued in `mail-<id>`, owned by `mail.accountId`) and
 * starts its delivery workflow. Never sends inline and never fails because delivery fails
 * (delivery retries with back-off; a final failure is the event MailDeliveryFailed). Queueing
 * an id already queued records nothing and only makes sure its workflow runs.
 *
 * Throws ValidationError for an id unusable as a Message-ID (letters, digits, `.`, `_`, `-`;
 * up to 200) or a recipient that is not one plain address: mistakes of the caller, not of delivery.
 */
export async function queueMail(deps: AppDeps, context: CommandContext, mail: OutgoingMail): Promise<void> {
  if (!MAIL_ID_PATTERN.test(mail.id)) throw new ValidationError(`mail id ${JSON.stringify(mail.id)} is not usable as a Message-ID.`);
  if (!SINGLE_ADDRESS.test(mail.to)) throw new ValidationError('The recipient must be one e-mail address.');
  const from = deps.config.MAIL_FROM;
  const outcome = await runCommand(
    deps.store,
    mailStream(mail.id),
    mailDecider,
    {
      type: 'QueueMail',
      mail_id: mail.id,
      message_id: messageIdFor(mail.id, from),
      account_id: mail.accountId,
      from,
      to: mail.to,
      subject: mail.subject,
      text: mail.text,
      html: mail.html,
      now: context.now,
    },
    { ...context, accountId: mail.accountId },
  );
  if (outcome.position !== null) deps.readModels.poke();
  try {
    await deps.workflows.start(MAIL_DELIVERY_WORKFLOW_TYPE, mail.id, {});
  } catch (error) {
    // Recorded is enough: the workflow sweep starts every queued message that has no run.
    deps.log.error({ err: error, mail: mail.id }, 'mail delivery workflow not started; the sweep will start it');
  }
}
