/**
 * THE submission mail recovery workflow, run by both engines (workflows/definition.ts). A
 * submission through a request's link records its verification (VerificationQueued) and then
 * queues the requester's e-mail in another stream (`mail-<id>`): a process killed between the two
 * leaves the requester untold. Its registration's sweep (src/features/requests/submission-mail-activities.ts)
 * finds recent submissions whose verification is recorded and whose message the mail read model
 * does not hold, and starts one run per message (its id: the message id), which queues it from the
 * recorded submission exactly as the submission would. One message id per submission, so nothing
 * is queued twice (queueing an id again is a no-op). Deterministic code only: Temporal's
 * workflow bundle includes this module (types and string ids).
 */
import { owedMailWorkflow, type OwedMailOutcome } from '../owed-mail-workflow.js';

export const SUBMISSION_MAIL_WORKFLOW_TYPE = 'requestSubmissionMail';

/** The id of the requester's e-mail about one submission (one per verification id): the submission and the sweep queue the same. */
export const submissionMailId = (verificationId: string): string => `photoverify-request-submission-${verificationId}`;

/**
 * Submissions older than this are not looked at: a notice a week late tells of a photo the
 * requester has likely found by then, and the bound keeps the sweep to recent rows (as the share
 * mail recovery's). Longer than any outage after which the service is expected to come back by itself.
 */
export const SUBMISSION_MAIL_RECOVERY_MS = 7 * 24 * 60 * 60_000;

export interface SubmissionMailInput {
  request_id: string;
  verification_id: string;
}

/**
 * `queued`: the message is queued (now, or by the submission before); `superseded`: nothing is
 * owed (the submission was withdrawn, its verification never recorded or deleted, the request deleted).
 */
export type SubmissionMailOutcome = OwedMailOutcome;

export interface SubmissionMailActivities {
  /** Re-reads the request's and the verification's streams and queues the message `id` if the submission still stands (the delivery sweep then sends it). */
  queueSubmissionMail(id: string, input: SubmissionMailInput): Promise<SubmissionMailOutcome>;
}

export const submissionMailWorkflow = owedMailWorkflow<SubmissionMailInput, 'queueSubmissionMail'>(SUBMISSION_MAIL_WORKFLOW_TYPE, 'queueSubmissionMail');
