import type { FeatureModule } from '../../core/module/module.js';
import { accountStreams } from '../../core/es/stream-read-rules.js';
import { captureStream } from './decider.js';
import { attestationErrors } from './errors.js';
import { attestationEvents } from './events.js';
import { captureRoutes } from './routes.js';

/** Capture attestation: challenges, signed attestations, and their single-use redemption. */
export const attestationsModule = {
  name: 'attestations',
  events: [attestationEvents],
  routes: captureRoutes,
  errors: attestationErrors,
  // Their history: for every user of the owning account, as the feature's own reads.
  streamReadRules: [accountStreams(captureStream)],
} satisfies FeatureModule;
