import type { FeatureModule } from '../../core/module/module.js';
import { auditErrors } from './errors.js';
import { auditRoutes } from './routes.js';

/** The audit history: every stream a caller owns, event by event, with secrets redacted. */
export const auditModule = {
  name: 'audit',
  routes: auditRoutes,
  errors: auditErrors,
} satisfies FeatureModule;
