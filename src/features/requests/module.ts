import type { WorkflowDeps } from '../../core/module/deps.js';
import type { FeatureModule } from '../../core/module/module.js';
import { accountStreams } from '../../core/es/stream-read-rules.js';
import { requestStream } from './events.js';
import { registerWorkflow } from '../../core/es/workflow.js';
import { createRequestActivities, requestExpirySweep } from './activities.js';
import { createSubmissionReleaseActivities, submissionReleaseSweep } from './abandoned.js';
import { requestErrors } from './errors.js';
import { createSubmissionMailActivities, submissionMailSweep } from './submission-mail-activities.js';
import { requestEvents } from './events.js';
import { verificationRequestExtension } from './extension.js';
import { requestTokenRedaction } from './log-redaction.js';
import { requestRoutes } from './routes.js';
import { providerPageRoutes } from './provider-page-routes.js';
import { requestExpiryWorkflow } from '../../../workflows/requests/workflow.js';
import { submissionReleaseWorkflow } from '../../../workflows/requests/abandoned-workflow.js';
import { submissionMailWorkflow } from '../../../workflows/requests/submission-mail-workflow.js';

/** Verification requests: a requester's link through which a provider submits an original, counted under a cap, expiring at a deadline. */
export const requestsModule = {
  name: 'requests',
  events: [requestEvents],
  routes: (deps) => [...requestRoutes(deps), ...providerPageRoutes(deps)],
  workflows: requestWorkflows,
  errors: requestErrors,
  extensions: [verificationRequestExtension],
  // A request link's token is its credential (the provider page's URLs carry it).
  logRedactions: [requestTokenRedaction],
  // Their history: for every user of the owning account, as the feature's own reads.
  streamReadRules: [accountStreams(requestStream)],
} satisfies FeatureModule;

function requestWorkflows(deps: WorkflowDeps) {
  return [
    registerWorkflow(requestExpiryWorkflow, createRequestActivities(deps), requestExpirySweep),
    registerWorkflow(submissionReleaseWorkflow, createSubmissionReleaseActivities(deps), submissionReleaseSweep),
    registerWorkflow(submissionMailWorkflow, createSubmissionMailActivities(deps), submissionMailSweep),
  ];
}
