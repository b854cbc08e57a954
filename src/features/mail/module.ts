import type { WorkflowDeps } from '../../core/deps.js';
import type { FeatureModule } from '../../core/module.js';
import { registerWorkflow } from '../../core/workflow.js';
import { createMailActivities, mailDeliverySweep, mailRetryPolicy } from './activities.js';
import { mailEvents } from './events.js';
import { mailMessagesProjector } from '../../../projections/mail/projection.js';
import { mailDeliveryWorkflow } from '../../../workflows/mail/workflow.js';

/** Outgoing e-mail: queued by other features (use-cases.ts: queueMail), delivered by a workflow. No routes of its own. */
export const mailModule = {
  name: 'mail',
  events: [mailEvents],
  projectors: [mailMessagesProjector],
  workflows: mailWorkflows,
} satisfies FeatureModule;

function mailWorkflows(deps: WorkflowDeps) {
  const activities = createMailActivities({
    store: deps.store,
    blobs: deps.blobs,
    mailer: deps.mailer,
    log: deps.log,
    now: deps.now,
    config: deps.config,
    policy: mailRetryPolicy(deps.config),
  });
  return [registerWorkflow(mailDeliveryWorkflow, activities, mailDeliverySweep)];
}
