import { shutdownRawDecoders } from '../../analysis/raw/index.js';
import type { WorkflowDeps } from '../../core/module/deps.js';
import type { FeatureModule } from '../../core/module/module.js';
import { accountStreams } from '../../core/es/stream-read-rules.js';
import { verificationStream } from './events.js';
import { registerWorkflow } from '../../core/es/workflow.js';
import { createVerificationActivities, createVerificationWorkflowActivities, verificationSweep } from './activities.js';
import { AnalysisPool } from './analysis-pool.js';
import { verificationErrors } from './errors.js';
import { verificationEvents } from './events.js';
import { verificationRoutes } from './routes.js';
import { verificationDependencies } from './dependencies.js';
import { verificationTools } from './tools.js';
import { verificationWorkflow } from '../../../workflows/verifications/workflow.js';
import { claimWindowActivities, claimWindowSweep, createRetentionSteps, rawDiscardActivities, rawDiscardSweep } from './retention.js';
import { rawDiscardWorkflow } from '../../../workflows/verifications/raw-discard-workflow.js';
import { claimWindowWorkflow } from '../../../workflows/verifications/claim-window-workflow.js';

export const verificationsModule = {
  name: 'verifications',
  dependencies: verificationDependencies,
  events: [verificationEvents],
  routes: verificationRoutes,
  tools: verificationTools,
  workflows: verificationWorkflows,
  errors: verificationErrors,
  // Their history: for every user of the owning account, as the feature's own reads.
  streamReadRules: [accountStreams(verificationStream)],
} satisfies FeatureModule;

/**
 * The verification workflow and its steps (the CPU-bound pair analysis runs in worker threads),
 * and the retention workflows: the RAW discard's recovery run and the anonymous claim window's timer.
 */
function verificationWorkflows(deps: WorkflowDeps) {
  const analysisPool = new AnalysisPool(deps.config.WORKFLOW_CONCURRENCY, { idleMs: 30_000 });
  deps.onStop(async () => {
    await analysisPool.close();
    shutdownRawDecoders();
  });
  const retention = createRetentionSteps({
    store: deps.store,
    blobs: deps.blobs,
    log: deps.log,
    now: deps.now,
    config: deps.config,
    renderRaw: (raw, signal) => analysisPool.renderRaw(raw, signal),
  });
  const steps = createVerificationActivities({
    store: deps.store,
    blobs: deps.blobs,
    log: deps.log,
    now: deps.now,
    processingRegion: deps.config.PROCESSING_REGION,
    serviceName: deps.config.SERVICE_NAME,
    pipelineBuild: deps.pipelineBuild,
    trust: deps.trust,
    signer: deps.signer,
    analysisPool,
    retention,
  });
  return [
    registerWorkflow(verificationWorkflow, createVerificationWorkflowActivities(steps, deps.log), verificationSweep),
    registerWorkflow(rawDiscardWorkflow, rawDiscardActivities(retention), rawDiscardSweep(deps.config)),
    registerWorkflow(claimWindowWorkflow, claimWindowActivities(retention), claimWindowSweep),
  ];
}
