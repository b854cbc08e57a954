/**
 * THE upload expiry workflow, run by both engines (workflows/definition.ts): one run per received
 * upload (id: the upload's nonce), started when its file arrives. It waits until the upload id
 * has expired and the grace after it has passed (policy.ts), then deletes the file unless a
 * verification used it, recording UploadExpired. Deterministic code only: Temporal's workflow
 * bundle includes this module (types and pure helpers).
 */
import { type DueStep, recoveryStep, whenDue, type WorkflowDefinition } from '../definition.js';
import { uploadDeletableAt } from './policy.js';

export const UPLOAD_EXPIRY_WORKFLOW_TYPE = 'uploadExpiry';

/**
 * `expired`: UploadExpired recorded (now or before) and the file deleted; `used`: a verification
 * took it, nothing to delete; `missing`: no upload recorded under this id; `not_due`: too early
 * by the activity's clock, call again at `dueAt` (epoch ms).
 */
export type ExpiryStep = DueStep<'expired' | 'used' | 'missing'>;

export interface UploadExpiryActivities {
  /** Idempotent: records UploadExpired at most once and deletes the file (again) whenever the upload is expired. */
  expireUpload(nonce: string): Promise<ExpiryStep>;
}

export interface UploadExpiryInput {
  /** The upload id's expiry (ISO 8601), as UploadReceived recorded it. */
  expires_at: string;
}

export type UploadExpiryOutcome = 'expired' | 'used' | 'missing';


export const uploadExpiryWorkflow: WorkflowDefinition<UploadExpiryInput, UploadExpiryActivities, UploadExpiryOutcome> = {
  type: UPLOAD_EXPIRY_WORKFLOW_TYPE,
  activities: { expireUpload: recoveryStep() },

  // Derived from the recorded expiry.
  run: (ctx, input) => whenDue(ctx, uploadDeletableAt(input.expires_at), () => ctx.activities.expireUpload(ctx.id)),
};
