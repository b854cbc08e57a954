import type { WorkflowDeps } from '../../core/deps.js';
import type { FeatureModule } from '../../core/module.js';
import { registerWorkflow } from '../../core/workflow.js';
import { usageErrors } from './errors.js';
import { usageEvents } from './events.js';
import { usageProjector } from '../../../projections/usage/projection.js';
import { createMeteringReleaseActivities, meteringReleaseSweep } from './release-activities.js';
import { meteringReleaseWorkflow } from '../../../workflows/usage/release-workflow.js';
import { usageRoutes } from './routes.js';
import { usageTools } from './tools.js';

export const usageModule = {
  name: 'usage',
  events: [usageEvents],
  projectors: [usageProjector],
  routes: usageRoutes,
  tools: usageTools,
  workflows: usageWorkflows,
  errors: usageErrors,
} satisfies FeatureModule;

/** The release of reservations a crash left without their verification (workflows/usage/release-workflow.ts). */
function usageWorkflows(deps: WorkflowDeps) {
  return [registerWorkflow(meteringReleaseWorkflow, createMeteringReleaseActivities(deps), meteringReleaseSweep(deps.config.METERING_RELEASE_GRACE_MS))];
}
