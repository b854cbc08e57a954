import type { FeatureModule } from '../../core/module.js';
import { complianceProjector } from '../../../projections/compliance/projection.js';
import { complianceRoutes } from './routes.js';

/** Compliance evidence for a period: the account's processing events (JSON Lines, CSV) and their signed summary. */
export const complianceModule = {
  name: 'compliance',
  projectors: [complianceProjector],
  routes: complianceRoutes,
} satisfies FeatureModule;
