import type { WorkflowDeps } from '../../core/deps.js';
import type { FeatureModule } from '../../core/module.js';
import { registerWorkflow } from '../../core/workflow.js';
import { accountErrors } from './errors.js';
import { accountEvents, emailClaimEvents } from './events.js';
import { accountsProjector } from '../../../projections/accounts/projection.js';
import { createInvitationMailActivities, invitationMailSweep } from './invitation-activities.js';
import { invitationMailWorkflow } from '../../../workflows/accounts/invitation-workflow.js';
import { accountRoutes } from './routes.js';
import { accountDependencies } from './dependencies.js';
import { resolveJwt } from './sessions.js';
import { apiKeyAuthenticator } from './api-key-principal.js';
import { setPlanCommand } from './set-plan-command.js';

export const accountsModule = {
  name: 'accounts',
  dependencies: accountDependencies,
  // Session tokens from POST /v1/accounts/login: every bearer token that is not another kind's.
  // API keys too: a key acts as its user, whom this feature knows (api-key-principal.ts).
  authenticators: [{ name: 'session token', resolve: resolveJwt }, apiKeyAuthenticator],
  commands: [setPlanCommand],
  events: [accountEvents, emailClaimEvents],
  projectors: [accountsProjector],
  routes: accountRoutes,
  workflows: accountWorkflows,
  errors: accountErrors,
} satisfies FeatureModule;

/** The recovery of invitation e-mails a crash left unqueued (workflows/accounts/invitation-workflow.ts). */
function accountWorkflows(deps: WorkflowDeps) {
  return [registerWorkflow(invitationMailWorkflow, createInvitationMailActivities(deps), invitationMailSweep)];
}
