import type { WorkflowDeps } from '../../core/deps.js';
import type { FeatureModule } from '../../core/module.js';
import { registerWorkflow } from '../../core/workflow.js';
import { usageErrors } from './errors.js';
import { usageEvents } from './events.js';
import { usageProjector } from './projection.js';
import { createMeteringReleaseActivities } from './release-activities.js';
import { meteringReleaseDefinition } from './release-workflow.js';
import { usageRoutes } from './routes.js';
import { usageTools } from './tools.js';

export const usageModule: FeatureModule = {
  name: 'usage',
  events: [usageEvents],
  projectors: [usageProjector],
  routes: usageRoutes,
  tools: usageTools,
  workflows: usageWorkflows,
  errors: usageErrors,
};

/** The release of reservations a crash left without their verification (release-workflow.ts). */
function usageWorkflows(deps: WorkflowDeps) {
  return [registerWorkflow(meteringReleaseDefinition(deps.config.METERING_RELEASE_GRACE_MS), createMeteringReleaseActivities(deps))];
}
