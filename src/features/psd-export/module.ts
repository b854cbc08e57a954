import type { WorkflowDeps } from '../../core/module/deps.js';
import type { FeatureModule } from '../../core/module/module.js';
import { accountStreams } from '../../core/es/stream-read-rules.js';
import { psdExportStream } from './events.js';
import { registerWorkflow } from '../../core/es/workflow.js';
import { createPsdExportActivities, psdExportSweep } from './activities.js';
import { createPsdCleanupActivities, psdExportDeletionSweep, psdReservationReleaseSweep } from './cleanup-activities.js';
import { psdExportErrors } from './errors.js';
import { psdExportEvents } from './events.js';
import { usagePsdExportExtension, verificationPsdExportExtension } from './extension.js';
import { psdExportRoutes } from './routes.js';
import { psdExportTools } from './tools.js';
import { psdExportWorkflow } from '../../../workflows/psd-export/workflow.js';
import { psdExportDeletionWorkflow } from '../../../workflows/psd-export/deletion-workflow.js';
import { psdReservationReleaseWorkflow } from '../../../workflows/psd-export/reservation-release-workflow.js';

/** Layered PSD exports of completed pairs: requested (plan and budget checked), built, metered, downloaded 5 times, expired after 30 days. */
export const psdExportModule = {
  name: 'psd-export',
  events: [psdExportEvents],
  routes: psdExportRoutes,
  tools: psdExportTools,
  workflows: psdExportWorkflows,
  errors: psdExportErrors,
  extensions: [verificationPsdExportExtension, usagePsdExportExtension],
  // Their history: for every user of the owning account, as the feature's own reads.
  streamReadRules: [accountStreams(psdExportStream)],
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
