import { systemContext } from '../../core/commands.js';
import type { AppDeps } from '../../core/deps.js';
import { ValidationError } from '../../core/errors.js';
import { ActivityError, type ActivityImplementations, type SweepSource } from '../../core/workflow.js';
import { queuedMailIds, recordMail } from '../mail/index.js';
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
      // The submission's page request, as the submission's context would have named it; the service acts.
      const context = {
        ...systemContext(deps, { actor: { type: 'system', id: 'submission-mail-recovery' }, correlationId: owed.cause.metadata.correlation_id, accountId: owed.mail.accountId }),
        causationId: owed.cause.id,
      };
      try {
        await recordMail(deps, context, owed.mail);
      } catch (error) {
        if (error instanceof ValidationError) throw new ActivityError('InvalidMail', error.message, { nonRetryable: true });
        throw error;
      }
      return 'queued';
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
