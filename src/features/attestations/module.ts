import type { FeatureModule } from '../../core/module.js';
import { attestationErrors } from './errors.js';
import { attestationEvents } from './events.js';
import { attestationsProjector } from '../../../projections/attestations/projection.js';
import { captureRoutes } from './routes.js';

/** Capture attestation: challenges, signed attestations, and their single-use redemption. */
export const attestationsModule = {
  name: 'attestations',
  events: [attestationEvents],
  projectors: [attestationsProjector],
  routes: captureRoutes,
  errors: attestationErrors,
} satisfies FeatureModule;
