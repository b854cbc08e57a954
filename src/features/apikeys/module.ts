import type { FeatureModule } from '../../core/module.js';
import { apikeyErrors } from './errors.js';
import { apiKeyEvents } from './events.js';
import { apiKeysProjector } from '../../../projections/apikeys/projection.js';
import { apiKeyRoutes } from './routes.js';

export const apiKeysModule = {
  name: 'apikeys',
  events: [apiKeyEvents],
  projectors: [apiKeysProjector],
  routes: apiKeyRoutes,
  errors: apikeyErrors,
} satisfies FeatureModule;
