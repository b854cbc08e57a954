import type { FeatureModule } from '../../core/module/module.js';
import { docsRoutes } from './routes.js';

/** The front door: `GET /` (an HTML page or a JSON index) and the API reference at `/docs`. */
export const docsModule = { name: 'docs', routes: docsRoutes } satisfies FeatureModule;
