import type { FeatureModule } from '../../core/module/module.js';
import { complianceRoutes } from './routes.js';

/** Compliance evidence for a period: the account's processing events (JSON Lines, CSV) and their signed summary. */
export const complianceModule = {
  name: 'compliance',
  routes: complianceRoutes,
} satisfies FeatureModule;
