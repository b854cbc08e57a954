import type { WorkflowDeps } from '../../core/module/deps.js';
import type { FeatureModule } from '../../core/module/module.js';
import { accountStreams } from '../../core/es/stream-read-rules.js';
import { usageStream } from './decider.js';
import { registerWorkflow } from '../../core/es/workflow.js';
import { usageErrors } from './errors.js';
import { usageEvents } from './events.js';
import { createMeteringReleaseActivities, meteringReleaseSweep } from './release-activities.js';
import { meteringReleaseWorkflow } from '../../../workflows/usage/release-workflow.js';
import { usageRoutes } from './routes.js';
import { usageTools } from './tools.js';

export const usageModule = {
  name: 'usage',
  events: [usageEvents],
  routes: usageRoutes,
  tools: usageTools,
  workflows: usageWorkflows,
  errors: usageErrors,
  // Their history: for every user of the owning account, as the feature's own reads.
  streamReadRules: [accountStreams(usageStream)],
} satisfies FeatureModule;

/** The release of reservations a crash left without their verification (workflows/usage/release-workflow.ts). */
function usageWorkflows(deps: WorkflowDeps) {
  return [registerWorkflow(meteringReleaseWorkflow, createMeteringReleaseActivities(deps), meteringReleaseSweep(deps.config.METERING_RELEASE_GRACE_MS))];
}
