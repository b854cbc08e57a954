import type { FeatureModule } from '../../core/module.js';
import { healthRoutes } from './routes.js';

export const healthModule: FeatureModule = { name: 'health', routes: healthRoutes };
