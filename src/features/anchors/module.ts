import type { WorkflowDeps } from '../../core/deps.js';
import type { FeatureModule } from '../../core/module.js';
import { registerWorkflow } from '../../core/workflow.js';
import { anchorBatchSweep, createAnchorActivities } from './activities.js';
import { anchorEvents } from './events.js';
import { verificationAnchorsExtension } from './extension.js';
import { anchorsProjector } from '../../../projections/anchors/projection.js';
import { anchorRoutes } from './routes.js';
import { anchorBatchWorkflow } from '../../../workflows/anchors/workflow.js';

/** Anchors: completed verifications batched under a signed (and timestamped) Merkle root, shown as the Verification's `anchored_in`. */
export const anchorsModule = {
  name: 'anchors',
  events: [anchorEvents],
  projectors: [anchorsProjector],
  routes: anchorRoutes,
  workflows: anchorWorkflows,
  extensions: [verificationAnchorsExtension],
} satisfies FeatureModule;

function anchorWorkflows(deps: WorkflowDeps) {
  return [registerWorkflow(anchorBatchWorkflow, createAnchorActivities(deps), anchorBatchSweep(deps.config))];
}
