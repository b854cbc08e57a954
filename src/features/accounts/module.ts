import type { WorkflowDeps } from '../../core/deps.js';
import type { FeatureModule } from '../../core/module.js';
import { registerWorkflow } from '../../core/workflow.js';
import { accountErrors } from './errors.js';
import { accountEvents, emailClaimEvents } from './events.js';
import { accountsProjector } from '../../../projections/accounts/projection.js';
import { createInvitationMailActivities, invitationMailSweep } from './invitation-activities.js';
import { invitationMailWorkflow } from '../../../workflows/accounts/invitation-workflow.js';
import { accountRoutes } from './routes.js';

export const accountsModule: FeatureModule = {
  name: 'accounts',
  events: [accountEvents, emailClaimEvents],
  projectors: [accountsProjector],
  routes: accountRoutes,
  workflows: accountWorkflows,
  errors: accountErrors,
};

/** The recovery of invitation e-mails a crash left unqueued (invitation-workflow.ts). */
function accountWorkflows(deps: WorkflowDeps) {
  return [registerWorkflow(invitationMailWorkflow, createInvitationMailActivities(deps), invitationMailSweep)];
}
