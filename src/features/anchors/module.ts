import type { WorkflowDeps } from '../../core/module/deps.js';
import type { FeatureModule } from '../../core/module/module.js';
import { registerWorkflow } from '../../core/es/workflow.js';
import { anchorBatchSweep, createAnchorActivities } from './activities.js';
import { anchorEvents } from './events.js';
import { verificationAnchorsExtension } from './extension.js';
import { anchorRoutes } from './routes.js';
import { anchorBatchWorkflow } from '../../../workflows/anchors/workflow.js';

/** Anchors: completed verifications batched under a signed (and timestamped) Merkle root, shown as the Verification's `anchored_in`. */
export const anchorsModule = {
  name: 'anchors',
  events: [anchorEvents],
  routes: anchorRoutes,
  workflows: anchorWorkflows,
  extensions: [verificationAnchorsExtension],
} satisfies FeatureModule;

function anchorWorkflows(deps: WorkflowDeps) {
  return [registerWorkflow(anchorBatchWorkflow, createAnchorActivities(deps), anchorBatchSweep(deps.config))];
}
