import type { WorkflowDeps } from '../../core/module/deps.js';
import type { FeatureModule } from '../../core/module/module.js';
import { accountStreams } from '../../core/es/stream-read-rules.js';
import { uploadStream } from './decider.js';
import { registerWorkflow } from '../../core/es/workflow.js';
import { createUploadActivities, uploadExpirySweep } from './activities.js';
import { uploadErrors } from './errors.js';
import { uploadEvents } from './events.js';
import { uploadRoutes } from './routes.js';
import { uploadTools } from './tools.js';
import { uploadIdRedaction } from './log-redaction.js';
import { uploadExpiryWorkflow } from '../../../workflows/uploads/workflow.js';

/** Pre-signed uploads: agents send large files by URL, then verify from the upload ids; unused files are deleted after expiry. */
export const uploadsModule = {
  name: 'uploads',
  events: [uploadEvents],
  routes: uploadRoutes,
  tools: uploadTools,
  workflows: uploadWorkflows,
  errors: uploadErrors,
  logRedactions: [uploadIdRedaction],
  // Their history: for every user of the owning account, as the feature's own reads.
  streamReadRules: [accountStreams(uploadStream)],
} satisfies FeatureModule;

function uploadWorkflows(deps: WorkflowDeps) {
  const activities = createUploadActivities({ store: deps.store, blobs: deps.blobs, now: deps.now, config: deps.config });
  return [registerWorkflow(uploadExpiryWorkflow, activities, uploadExpirySweep)];
}
