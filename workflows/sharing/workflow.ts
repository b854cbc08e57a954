/**
 * THE share mail recovery workflow, run by both engines (workflows/definition.ts). The sharing use
 * cases record a change (ShareInvited, ShareAccessChanged) and then queue its messages in
 * another stream: a process killed between the two leaves the message unqueued. This
 * registration's sweep (src/features/sharing/activities.ts) finds, in the read models, the messages recent invitations and access
 * changes are owed that the mail read model does not hold, and starts one run per message (its
 * id: the message id), which queues it from the recorded share exactly as the use case would.
 * The message id is the use case's (projections/sharing/mail-ids.ts), so nothing is queued twice: queueing an id
 * again is a no-op. Deterministic code only: Temporal's workflow bundle includes this module
 * (types and pure helpers).
 */
import { owedMailWorkflow, type OwedMailOutcome } from '../owed-mail-workflow.js';

export const SHARE_MAIL_WORKFLOW_TYPE = 'shareMail';

/**
 * Changes older than this are not looked at: a message a week late would tell of a share that
 * may have changed since, and the bound keeps the sweep to recent rows. Longer than any outage
 * after which the service is expected to come back by itself.
 */
export const SHARE_MAIL_RECOVERY_MS = 7 * 24 * 60 * 60_000;

export interface ShareMailInput {
  verification_id: string;
  email: string;
  kind: 'invitation' | 'access_changed';
}

/**
 * `queued`: the message is queued (now, or by the use case before); `superseded`: the share no
 * longer owes it (invitation revoked or renewed, share disabled, a later access change, the
 * verification deleted).
 */
export type ShareMailOutcome = OwedMailOutcome;

export interface ShareMailActivities {
  /** Re-reads the share stream and queues the message `id` if the share still owes it (the delivery sweep then sends it). */
  queueShareMail(id: string, input: ShareMailInput): Promise<ShareMailOutcome>;
}

export const shareMailWorkflow = owedMailWorkflow<ShareMailInput, 'queueShareMail'>(SHARE_MAIL_WORKFLOW_TYPE, 'queueShareMail');
