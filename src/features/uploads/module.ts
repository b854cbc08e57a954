import type { FeatureModule } from '../../core/module.js';
import { uploadErrors } from './errors.js';
import { uploadRoutes } from './routes.js';
import { uploadTools } from './tools.js';

/** Pre-signed uploads: agents send large files by URL, then verify from the upload ids. */
export const uploadsModule: FeatureModule = { name: 'uploads', routes: uploadRoutes, tools: uploadTools, errors: uploadErrors };
