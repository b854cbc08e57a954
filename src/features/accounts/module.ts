import type { WorkflowDeps } from '../../core/module/deps.js';
import type { FeatureModule } from '../../core/module/module.js';
import { accountStreams } from '../../core/es/stream-read-rules.js';
import { accountStream } from './decider.js';
import { registerWorkflow } from '../../core/es/workflow.js';
import { accountErrors } from './errors.js';
import { accountEvents, appSessionEvents, emailClaimEvents } from './events.js';
import { createInvitationMailActivities, invitationMailSweep } from './invitation-activities.js';
import { invitationMailWorkflow } from '../../../workflows/accounts/invitation-workflow.js';
import { accountRoutes } from './routes.js';
import { accountDependencies } from './dependencies.js';
import { resolveJwt } from './sessions.js';
import { apiKeyAuthenticator } from './api-key-principal.js';
import { setPlanCommand } from './set-plan-command.js';
import { endSessionsCommand } from './end-sessions-command.js';

export const accountsModule = {
  name: 'accounts',
  dependencies: accountDependencies,
  // Session tokens from POST /v1/accounts/login: every bearer token that is not another kind's.
  // API keys too: a key acts as its user, whom this feature knows (api-key-principal.ts).
  authenticators: [{ name: 'session token', resolve: resolveJwt }, apiKeyAuthenticator],
  commands: [setPlanCommand, endSessionsCommand],
  events: [accountEvents, emailClaimEvents, appSessionEvents],
  routes: accountRoutes,
  workflows: accountWorkflows,
  errors: accountErrors,
  // The account's own history (its settings, users, invitations); the address registry (email-<hash>) is no account's and has no rule: shown to no one.
  // Web app sessions (appsession-<uuid>) have no rule either: a credential's sign-in and use, shown to no one (issue 36).
  streamReadRules: [accountStreams(accountStream)],
} satisfies FeatureModule;

/** The recovery of invitation e-mails a crash left unqueued (workflows/accounts/invitation-workflow.ts). */
function accountWorkflows(deps: WorkflowDeps) {
  return [registerWorkflow(invitationMailWorkflow, createInvitationMailActivities(deps), invitationMailSweep)];
}
