import type { FeatureModule } from '../../core/module.js';
import { verificationErrors } from './errors.js';
import { verificationEvents } from './events.js';
import { verificationsProjector } from './projection.js';
import { verificationRoutes } from './routes.js';

export const verificationsModule: FeatureModule = {
  name: 'verifications',
  events: [verificationEvents],
  projectors: [verificationsProjector],
  routes: verificationRoutes,
  errors: verificationErrors,
};
