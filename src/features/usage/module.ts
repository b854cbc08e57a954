import type { FeatureModule } from '../../core/module.js';
import { usageErrors } from './errors.js';
import { usageEvents } from './events.js';
import { usageProjector } from './projection.js';
import { usageRoutes } from './routes.js';
import { usageTools } from './tools.js';

export const usageModule: FeatureModule = {
  name: 'usage',
  events: [usageEvents],
  projectors: [usageProjector],
  routes: usageRoutes,
  tools: usageTools,
  errors: usageErrors,
};
