import type { FeatureModule } from '../../core/module/module.js';
import { blobRoutes } from './routes.js';

/** Downloads behind pre-signed URLs (the file blob store's stand-in for a CDN). */
export const blobsModule = { name: 'blobs', routes: blobRoutes } satisfies FeatureModule;
