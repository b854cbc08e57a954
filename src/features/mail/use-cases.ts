import type { CommandContext } from '../../core/es/decider.js';
import { foldStream, runCommand } from '../../core/es/decider.js';
import type { AppDeps } from '../../core/module/deps.js';
import { ValidationError } from '../../core/errors.js';
import { MAIL_ID_PATTERN, messageIdFor } from '../../core/mail.js';
import { contentBytes, contentKey, sha256Hex, subjectLine } from './content.js';
import { mailDecider, mailStream } from './decider.js';
import { MAIL_DELIVERY_WORKFLOW_TYPE } from '../../../workflows/mail/workflow.js';

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
 * starts its delivery workflow. The bodies wait in the blob store until delivery ends
 * (content.ts). Never sends inline and never fails because delivery fails (delivery retries
 * with back-off; a final failure is the event MailDeliveryFailed). Queueing an id already
 * queued records nothing and only makes sure its workflow runs.
 *
 * Throws ValidationError for an id unusable as a Message-ID (letters, digits, `.`, `_`, `-`;
 * up to 200) or a recipient that is not one plain address: mistakes of the caller, not of delivery.
 */
export async function queueMail(deps: AppDeps, context: CommandContext, mail: OutgoingMail): Promise<void> {
  await recordMail(deps, context, mail);
  try {
    await deps.workflows.start(MAIL_DELIVERY_WORKFLOW_TYPE, mail.id, {});
  } catch (error) {
    // Recorded is enough: the workflow sweep starts every queued message that has no run.
    deps.log.error({ err: error, mail: mail.id }, 'mail delivery workflow not started; the sweep will start it');
  }
}

type RecordDeps = Pick<AppDeps, 'store' | 'blobs' | 'config'>;

/**
 * queueMail without starting the delivery workflow, for workflow activities (which have no
 * engine to start it with): the mail delivery sweep starts every queued message that has no
 * run, at its next sweep. Idempotent per id, and throws the same ValidationErrors.
 */
export async function recordMail(deps: RecordDeps, context: CommandContext, mail: OutgoingMail): Promise<void> {
  if (!MAIL_ID_PATTERN.test(mail.id)) throw new ValidationError(`mail id ${JSON.stringify(mail.id)} is not usable as a Message-ID.`);
  if (!SINGLE_ADDRESS.test(mail.to)) throw new ValidationError('The recipient must be one e-mail address.');
  if ((await foldStream(deps.store, mailStream(mail.id), mailDecider)).state.status === 'none') await record(deps, context, mail);
}

/** Stores the bodies, then appends MailQueued (once MailQueued is recorded, delivery may start at any moment). */
async function record(deps: RecordDeps, context: CommandContext, mail: OutgoingMail): Promise<void> {
  const stream = mailStream(mail.id);
  const bytes = contentBytes(mail);
  const sha = sha256Hex(bytes);
  await deps.blobs.put(contentKey(mail.id, sha), bytes);
  const from = deps.config.MAIL_FROM;
  const outcome = await runCommand(
    deps.store,
    stream,
    mailDecider,
    { type: 'QueueMail', mail_id: mail.id, message_id: messageIdFor(mail.id, from), account_id: mail.accountId, from, to: mail.to, subject: subjectLine(mail.subject), content_sha256: sha, now: context.now },
    { ...context, accountId: mail.accountId },
  );
  if (outcome.position !== null) return;
  // A concurrent call queued this id first: its bodies are the ones delivered; ours go unless identical.
  const { state } = await foldStream(deps.store, stream, mailDecider);
  if (state.status === 'none' || state.contentSha256 !== sha) await deps.blobs.delete(contentKey(mail.id, sha));
}
