import type { AppDeps } from '../../core/module/deps.js';
import type { ActivityImplementations, SweepSource } from '../../core/es/workflow.js';
import { queuedMailIds, queueOwedMail } from '../mail/index.js';
import { submissionMessage } from './submission-mail.js';
import {
  SUBMISSION_MAIL_RECOVERY_MS,
  submissionMailId,
  type SubmissionMailActivities,
  type SubmissionMailInput,
} from '../../../workflows/requests/submission-mail-workflow.js';

type SubmissionMailActivityDeps = Pick<AppDeps, 'store' | 'blobs' | 'knex' | 'config' | 'now'>;

export function createSubmissionMailActivities(deps: SubmissionMailActivityDeps): ActivityImplementations<SubmissionMailActivities> {
  return {
    async queueSubmissionMail(_context, id, input) {
      const owed = await submissionMessage(deps, input.request_id, input.verification_id);
      if (!owed || owed.mail.id !== id) return 'superseded';
      // For the submission's page request; the service acts.
      return queueOwedMail(deps, owed, 'submission-mail-recovery');
    },
  };
}

/**
 * Submissions of the last week whose verification is recorded (`queued`: withdrawn ones have no
 * row) without a queued message: normally none (the submission queued it).
 */
export async function submissionMailSweep({ knex, now }: SweepSource): Promise<{ id: string; input: SubmissionMailInput }[]> {
  const recent: { verification_id: string; request_id: string }[] = await knex('request_submissions')
    .select('verification_id', 'request_id')
    .where({ queued: true })
    .andWhere('received_at', '>', new Date(now.getTime() - SUBMISSION_MAIL_RECOVERY_MS));
  const queued = await queuedMailIds(knex, recent.map((s) => submissionMailId(s.verification_id)));
  return recent
    .filter((s) => !queued.has(submissionMailId(s.verification_id)))
    .map((s) => ({ id: submissionMailId(s.verification_id), input: { request_id: s.request_id, verification_id: s.verification_id } }));
}
