import type { WorkflowDeps } from '../../core/module/deps.js';
import type { FeatureModule } from '../../core/module/module.js';
import { accountStreams } from '../../core/es/stream-read-rules.js';
import { shareStream, shareViewsStream } from './decider.js';
import { registerWorkflow } from '../../core/es/workflow.js';
import { shareMailSweep, createShareMailActivities } from './activities.js';
import { sharingErrors } from './errors.js';
import { shareEvents, shareViewEvents } from './events.js';
import { reportPageRoutes } from './page-routes.js';
import { sharingRoutes } from './routes.js';
import { sharingTools } from './tools.js';
import { withoutLinkTokens, withoutLinkTokensInRequest } from './tokens.js';
import { shareMailWorkflow } from '../../../workflows/sharing/workflow.js';

/** Sharing: report links (anyone with the link, or restricted to invited addresses), invitations by e-mail, view analytics. */
export const sharingModule = {
  name: 'sharing',
  events: [shareEvents, shareViewEvents],
  routes: (deps) => [...sharingRoutes(deps), ...reportPageRoutes(deps)],
  tools: sharingTools,
  workflows: sharingWorkflows,
  errors: sharingErrors,
  // A share link's token (and an invitation's proof) is its credential.
  logRedactions: [{ url: withoutLinkTokens, request: withoutLinkTokensInRequest }],
  // Their history: for every user of the owning account, as the feature's own reads.
  streamReadRules: [accountStreams(shareStream), accountStreams(shareViewsStream)],
} satisfies FeatureModule;

/** The recovery of notifications a crash left unqueued (workflows/sharing/workflow.ts). */
function sharingWorkflows(deps: WorkflowDeps) {
  return [registerWorkflow(shareMailWorkflow, createShareMailActivities(deps), shareMailSweep)];
}
