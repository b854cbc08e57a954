import type { WorkflowDeps } from '../../core/deps.js';
import type { FeatureModule } from '../../core/module.js';
import { registerWorkflow } from '../../core/workflow.js';
import { createPsdExportActivities, psdExportSweep } from './activities.js';
import { createPsdCleanupActivities, psdExportDeletionSweep, psdReservationReleaseSweep } from './cleanup-activities.js';
import { psdExportErrors } from './errors.js';
import { psdExportEvents } from './events.js';
import { verificationPsdExportExtension } from './extension.js';
import { psdExportsProjector } from '../../../projections/psd-export/projection.js';
import { psdExportRoutes } from './routes.js';
import { psdExportTools } from './tools.js';
import { psdExportWorkflow } from '../../../workflows/psd-export/workflow.js';
import { psdExportDeletionWorkflow } from '../../../workflows/psd-export/deletion-workflow.js';
import { psdReservationReleaseWorkflow } from '../../../workflows/psd-export/reservation-release-workflow.js';

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

/** The export's lifecycle, and the recovery of what a crash or a verification's deletion leaves: a reservation no export names, a deleted verification's file. */
function psdExportWorkflows(deps: WorkflowDeps) {
  const cleanup = createPsdCleanupActivities(deps);
  const { releaseOrphanedPsdReservation, deletePsdExportOfDeletedVerification } = cleanup;
  return [
    registerWorkflow(psdExportWorkflow, createPsdExportActivities(deps), psdExportSweep),
    registerWorkflow(psdReservationReleaseWorkflow, { releaseOrphanedPsdReservation }, psdReservationReleaseSweep(deps.config.METERING_RELEASE_GRACE_MS)),
    registerWorkflow(psdExportDeletionWorkflow, { deletePsdExportOfDeletedVerification }, psdExportDeletionSweep),
  ];
}
