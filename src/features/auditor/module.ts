import type { FeatureModule } from '../../core/module/module.js';
import { auditorRoutes } from './routes.js';

/** Auditors: a verification's audit bundle (for `photoverify audit verify`) and its history page with the checks run in the browser. */
export const auditorModule = {
  name: 'auditor',
  routes: auditorRoutes,
} satisfies FeatureModule;
