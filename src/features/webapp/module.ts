import type { FeatureModule } from '../../core/module.js';
import { webappRoutes } from './routes.js';

/** The web app for the people of an account (issue 27): server-rendered pages under /app over the same use cases as the REST routes. */
export const webappModule = {
  name: 'webapp',
  routes: (deps) => webappRoutes(deps),
} satisfies FeatureModule;
