/**
 * THE abandoned submission release workflow, run by both engines (workflows/definition.ts). A
 * submission through a request link is counted on the request's stream before its files are
 * received (so concurrent uploads never pass max_submissions); a process killed before the
 * verification is recorded leaves a place counted with no verification, shown in
 * `submission_count` and holding the cap and DELETE's 409. Its registration's sweep
 * (src/features/requests/abandoned.ts) finds, in the requests read model, submissions still not
 * queued long after they were counted, and starts one run each, which gives the place back
 * (RequestSubmissionWithdrawn, reason ABANDONED) unless the verification exists after all.
 * Deterministic code only: Temporal's workflow bundle includes this module.
 */
import { oneStepWorkflow, recoveryStep } from '../definition.js';

export const REQUEST_SUBMISSION_RELEASE_WORKFLOW_TYPE = 'requestSubmissionRelease';

/** One run per counted submission (its verification id is the submission's id). */
export const submissionReleaseId = (verificationId: string): string => `request-submission-release-${verificationId}`;

export interface SubmissionReleaseInput {
  request_id: string;
  verification_id: string;
}

/** `withdrawn`: the place is given back (now, or before); `recorded`: the verification exists, the submission stays counted. */
export type SubmissionReleaseOutcome = 'withdrawn' | 'recorded';

export interface SubmissionReleaseActivities {
  /** Idempotent: withdraws the submission once, only while no verification of its id is recorded. */
  withdrawAbandonedSubmission(input: SubmissionReleaseInput): Promise<SubmissionReleaseOutcome>;
}

export const submissionReleaseWorkflow = oneStepWorkflow<SubmissionReleaseInput, SubmissionReleaseActivities, SubmissionReleaseOutcome>(
  REQUEST_SUBMISSION_RELEASE_WORKFLOW_TYPE,
  { withdrawAbandonedSubmission: recoveryStep() },
  (steps, input) => steps.withdrawAbandonedSubmission(input),
);
