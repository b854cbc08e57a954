import type { FeatureModule } from '../../core/module/module.js';
import { apikeyErrors } from './errors.js';
import { apiKeyEvents } from './events.js';
import { apiKeyRoutes } from './routes.js';
import { apiKeyStreamReadRule } from './use-cases.js';

export const apiKeysModule = {
  name: 'apikeys',
  events: [apiKeyEvents],
  routes: apiKeyRoutes,
  errors: apikeyErrors,
  // A key's history: for whoever sees the key in the list (a member their own keys, an admin all).
  streamReadRules: [apiKeyStreamReadRule],
} satisfies FeatureModule;
