import type { WorkflowDeps } from '../../core/module/deps.js';
import type { FeatureModule } from '../../core/module/module.js';
import { accountStreams } from '../../core/es/stream-read-rules.js';
import { mailStream } from './decider.js';
import { registerWorkflow } from '../../core/es/workflow.js';
import { createMailActivities, mailDeliverySweep, mailRetryPolicy } from './activities.js';
import { mailEvents } from './events.js';
import { mailDeliveryWorkflow } from '../../../workflows/mail/workflow.js';

/** Outgoing e-mail: queued by other features (use-cases.ts: queueMail), delivered by a workflow. No routes of its own. */
export const mailModule = {
  name: 'mail',
  events: [mailEvents],
  workflows: mailWorkflows,
  // Their history: for every user of the owning account, as the feature's own reads.
  streamReadRules: [accountStreams(mailStream)],
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
