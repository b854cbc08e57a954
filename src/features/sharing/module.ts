import type { WorkflowDeps } from '../../core/deps.js';
import type { FeatureModule } from '../../core/module.js';
import { registerWorkflow } from '../../core/workflow.js';
import { shareMailSweep, createShareMailActivities } from './activities.js';
import { sharingErrors } from './errors.js';
import { shareEvents, shareViewEvents } from './events.js';
import { sharesProjector } from '../../../projections/sharing/projection.js';
import { reportPageRoutes } from './page-routes.js';
import { sharingRoutes } from './routes.js';
import { sharingTools } from './tools.js';
import { withoutLinkTokens, withoutLinkTokensInRequest } from './tokens.js';
import { shareMailWorkflow } from '../../../workflows/sharing/workflow.js';

/** Sharing: report links (anyone with the link, or restricted to invited addresses), invitations by e-mail, view analytics. */
export const sharingModule = {
  name: 'sharing',
  events: [shareEvents, shareViewEvents],
  projectors: [sharesProjector],
  routes: (deps) => [...sharingRoutes(deps), ...reportPageRoutes(deps)],
  tools: sharingTools,
  workflows: sharingWorkflows,
  errors: sharingErrors,
  // A share link's token (and an invitation's proof) is its credential.
  logRedactions: [{ url: withoutLinkTokens, request: withoutLinkTokensInRequest }],
} satisfies FeatureModule;

/** The recovery of notifications a crash left unqueued (workflows/sharing/workflow.ts). */
function sharingWorkflows(deps: WorkflowDeps) {
  return [registerWorkflow(shareMailWorkflow, createShareMailActivities(deps), shareMailSweep)];
}
