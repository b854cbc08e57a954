import type { FeatureModule } from '../core/module/module.js';
import { accountRoutes } from './account-routes.js';
import { collabRoutes } from './collab-routes.js';
import { appContext } from './context.js';
import { pdfReportRoutes } from './pdf-report-routes.js';
import { reportRoutes } from './report-routes.js';
import { requestsRoutes } from './requests-routes.js';
import { webappRoutes } from './routes.js';
import { frontDoorRoutes, resetLinkRedaction } from './front-door-routes.js';
import { shareRoutes } from './share-routes.js';
import { uploadRoutes } from './upload.js';

/**
 * The web app for the people of an account (issue 27): server-rendered pages under /app over the
 * same use cases as the REST routes. One context for every section; each section adds its routes here.
 */
export const webappModule = {
  name: 'webapp',
  routes: (deps) => {
    const ctx = appContext(deps);
    return [
      ...webappRoutes(ctx),
      ...frontDoorRoutes(ctx),
      ...reportRoutes(ctx),
      ...pdfReportRoutes(ctx),
      ...collabRoutes(ctx),
      ...shareRoutes(ctx),
      ...requestsRoutes(ctx),
      ...accountRoutes(ctx),
      ...uploadRoutes(ctx),
    ];
  },
  logRedactions: [resetLinkRedaction],
} satisfies FeatureModule;
