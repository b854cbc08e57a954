import type { WorkflowDeps } from '../../core/deps.js';
import type { FeatureModule } from '../../core/module.js';
import { registerWorkflow } from '../../core/workflow.js';
import { createUploadActivities, uploadExpirySweep } from './activities.js';
import { uploadErrors } from './errors.js';
import { uploadEvents } from './events.js';
import { uploadsProjector } from '../../../projections/uploads/projection.js';
import { uploadRoutes } from './routes.js';
import { uploadTools } from './tools.js';
import { uploadIdRedaction } from './log-redaction.js';
import { uploadExpiryWorkflow } from '../../../workflows/uploads/workflow.js';

/** Pre-signed uploads: agents send large files by URL, then verify from the upload ids; unused files are deleted after expiry. */
export const uploadsModule = {
  name: 'uploads',
  events: [uploadEvents],
  projectors: [uploadsProjector],
  routes: uploadRoutes,
  tools: uploadTools,
  workflows: uploadWorkflows,
  errors: uploadErrors,
  logRedactions: [uploadIdRedaction],
} satisfies FeatureModule;

function uploadWorkflows(deps: WorkflowDeps) {
  const activities = createUploadActivities({ store: deps.store, blobs: deps.blobs, now: deps.now, config: deps.config });
  return [registerWorkflow(uploadExpiryWorkflow, activities, uploadExpirySweep)];
}
