import type { FeatureModule } from '../../core/module/module.js';
import { healthRoutes } from './routes.js';

export const healthModule = { name: 'health', routes: healthRoutes } satisfies FeatureModule;
