import type { FeatureModule } from '../../core/module.js';
import { accountErrors } from './errors.js';
import { accountEvents, emailClaimEvents } from './events.js';
import { accountsProjector } from './projection.js';
import { accountRoutes } from './routes.js';

export const accountsModule: FeatureModule = {
  name: 'accounts',
  events: [accountEvents, emailClaimEvents],
  projectors: [accountsProjector],
  routes: accountRoutes,
  errors: accountErrors,
};
