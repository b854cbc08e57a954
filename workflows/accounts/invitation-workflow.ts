/**
 * THE invitation mail recovery workflow, run by both engines (workflows/definition.ts). addUser
 * records UserInvited in the account stream and then queues the invitation e-mail in another
 * stream: a process killed between the two leaves the invited user without the message that
 * carries their set-password link. Its registration's sweep (src/features/accounts/invitation-activities.ts) finds, in the users read model,
 * pending invitations (not accepted, not expired; removed users have no row) whose message the
 * mail read model does not hold, and starts one run per message (its id: the message id), which
 * queues it from the recorded invitation exactly as the use case would (D-100). Deterministic
 * code only: Temporal's workflow bundle includes this module (types and string ids).
 */
import { owedMailWorkflow, type OwedMailOutcome } from '../owed-mail-workflow.js';

export const INVITATION_MAIL_WORKFLOW_TYPE = 'invitationMail';

/** The id of a user's invitation e-mail (one per user id): the use case and the sweep queue the same. */
export const invitationMailId = (userId: string): string => `photoverify-invitation-${userId}`;

export interface InvitationMailInput {
  account_id: string;
  user_id: string;
}

/** `queued`: the message is queued (now, or by the use case before); `superseded`: the invitation no longer stands (accepted, expired, user removed). */
export type InvitationMailOutcome = OwedMailOutcome;

export interface InvitationMailActivities {
  /** Re-reads the account stream and queues the message `id` if the invitation still stands (the delivery sweep then sends it). */
  queueInvitationMail(id: string, input: InvitationMailInput): Promise<InvitationMailOutcome>;
}

export const invitationMailWorkflow = owedMailWorkflow<InvitationMailInput, 'queueInvitationMail'>(INVITATION_MAIL_WORKFLOW_TYPE, 'queueInvitationMail');
