import type { FeatureModule } from '../../core/module.js';
import { sharingErrors } from './errors.js';
import { shareEvents, shareViewEvents } from './events.js';
import { sharesProjector } from './projection.js';
import { reportPageRoutes } from './page-routes.js';
import { sharingRoutes } from './routes.js';
import { sharingTools } from './tools.js';

/** Sharing: report links (anyone with the link, or restricted to invited addresses), invitations by e-mail, view analytics. */
export const sharingModule: FeatureModule = {
  name: 'sharing',
  events: [shareEvents, shareViewEvents],
  projectors: [sharesProjector],
  routes: (deps) => [...sharingRoutes(deps), ...reportPageRoutes(deps)],
  tools: sharingTools,
  errors: sharingErrors,
};
