import type { WorkflowDeps } from '../../core/deps.js';
import type { FeatureModule } from '../../core/module.js';
import { registerWorkflow } from '../../core/workflow.js';
import { createPsdExportActivities, psdExportSweep } from './activities.js';
import { psdExportErrors } from './errors.js';
import { psdExportEvents } from './events.js';
import { verificationPsdExportExtension } from './extension.js';
import { psdExportsProjector } from '../../../projections/psd-export/projection.js';
import { psdExportRoutes } from './routes.js';
import { psdExportTools } from './tools.js';
import { psdExportWorkflow } from '../../../workflows/psd-export/workflow.js';

/** Layered PSD exports of completed pairs: requested (plan and budget checked), built, metered, downloaded 5 times, expired after 30 days. */
export const psdExportModule = {
  name: 'psd-export',
  events: [psdExportEvents],
  projectors: [psdExportsProjector],
  routes: psdExportRoutes,
  tools: psdExportTools,
  workflows: psdExportWorkflows,
  errors: psdExportErrors,
  extensions: [verificationPsdExportExtension],
} satisfies FeatureModule;

function psdExportWorkflows(deps: WorkflowDeps) {
  return [registerWorkflow(psdExportWorkflow, createPsdExportActivities(deps), psdExportSweep)];
}
