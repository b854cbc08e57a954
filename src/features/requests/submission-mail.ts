import type { CommandContext } from '../../core/es/decider.js';
import type { AppDeps } from '../../core/module/deps.js';
import { parseEvent } from '../../core/es/events.js';
import type { EventActor, StoredEvent } from '../../core/es/event-store.js';
import { findUser, listUsersOfAccount } from '../accounts/index.js';
import { actingUserId } from '../apikeys/index.js';
import { queueMail, type OutgoingMail } from '../mail/index.js';
import { verificationEvents, verificationStream } from '../verifications/events.js';
import { requestDecider, requestStream } from './decider.js';
import { submissionMail } from './submission-mail-text.js';
import { submissionMailId } from '../../../workflows/requests/submission-mail-workflow.js';

/**
 * The requester's e-mail about a submission: the submission queues it right after the
 * verification is recorded (the fast path, `tellRequester`), and the recovery activity
 * (submission-mail-activities.ts, after a crash between the two) builds the same message under
 * the same id from the same events, so it is queued once.
 */

type MessageDeps = Pick<AppDeps, 'store' | 'knex' | 'config'>;

/** The message a submission is owed, with the event that caused it; null when none is (withdrawn, never recorded, deleted). */
export async function submissionMessage(deps: MessageDeps, requestId: string, verificationId: string): Promise<{ mail: OutgoingMail; cause: StoredEvent } | null> {
  const history = await deps.store.readStream(requestStream(requestId));
  const created = history[0];
  let state = requestDecider.initialState();
  let received: { stored: StoredEvent; count: number; at: string } | undefined;
  for (const stored of history) {
    const event = parseEvent(requestDecider.catalogue, stored);
    if (!event) continue;
    state = requestDecider.evolve(state, event);
    if (event.type === 'RequestSubmissionReceived' && event.data.verification_id === verificationId) received = { stored, count: event.data.submission_count, at: event.data.received_at };
  }
  // Withdrawn (files refused, quota, abandoned) or the request gone: nothing to tell.
  if (!created || !received || !('submissions' in state) || !state.submissions.includes(verificationId)) return null;
  const queued = await recordedVerification(deps, verificationId);
  if (!queued) return null;
  const accountId = created.metadata.account_id;
  if (!accountId) return null;
  const to = await requesterAddress(deps, created.metadata.actor, accountId);
  if (!to) return null;
  const rendered = submissionMail({
    serviceName: deps.config.SERVICE_NAME,
    publicBaseUrl: deps.config.PUBLIC_BASE_URL,
    requestId,
    subject: state.settings.subject,
    submissionCount: received.count,
    maxSubmissions: state.settings.max_submissions,
    verificationId,
    shortCode: queued.short_code,
    mode: queued.mode,
    fileName: queued.name,
    receivedAt: new Date(received.at),
  });
  // One message per submission: the submission, a retry and the sweep queue the same id.
  return { mail: { id: submissionMailId(verificationId), to, ...rendered, accountId }, cause: received.stored };
}

/** The verification's VerificationQueued facts, from its stream (not the read model, which may lag the submission); null when not recorded or deleted. */
async function recordedVerification(deps: MessageDeps, verificationId: string) {
  let queued: { name: string; short_code: string; mode: 'raw_pair' | 'image_only' } | undefined;
  for (const stored of await deps.store.readStream(verificationStream(verificationId))) {
    const event = parseEvent(verificationEvents, stored);
    if (event?.type === 'VerificationQueued') queued = { name: event.data.name, short_code: event.data.short_code, mode: event.data.mode };
    if (event?.type === 'VerificationDeleted') return null;
  }
  return queued ?? null;
}

/**
 * Who is told: the user who created the request (an API key's user, since keys belong to the
 * user who made them); if that user has left the account, its oldest admin (an account always
 * has one), so a submission is never told to nobody. One recipient: one message per submission.
 */
async function requesterAddress(deps: MessageDeps, creator: EventActor, accountId: string): Promise<string | null> {
  const userId = await actingUserId(deps.knex, creator);
  const user = userId ? await findUser(deps.knex, userId) : undefined;
  if (user && user.account_id === accountId) return user.email;
  const admin = (await listUsersOfAccount(deps.knex, accountId)).find((u) => u.role === 'admin' && u.password_hash !== null);
  return admin?.email ?? null;
}

/**
 * The fast path, called once the submission's verification is recorded. Never fails the
 * submission: the provider's upload is made whatever the mail does, and a message not queued
 * here (a database hiccup, a crash) is queued by the submission mail sweep (workflows/requests/submission-mail-workflow.ts).
 */
export async function tellRequester(deps: AppDeps, context: CommandContext, requestId: string, verificationId: string): Promise<void> {
  try {
    const owed = await submissionMessage(deps, requestId, verificationId);
    if (owed) await queueMail(deps, { ...context, now: deps.now() }, owed.mail);
  } catch (error) {
    deps.log.warn({ err: error, request: requestId, verification: verificationId }, 'submission mail not queued; the submission mail sweep queues it');
  }
}
