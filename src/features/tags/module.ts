import type { FeatureModule } from '../../core/module.js';
import { tagErrors } from './errors.js';
import { tagEvents, verificationTagEvents } from './events.js';
import { verificationTagsExtension } from './extension.js';
import { tagsProjector } from '../../../projections/tags/projection.js';
import { tagRoutes } from './routes.js';

/** Tags: the account's vocabulary, the tags on each verification, and the Verification's tags field, filters and search. */
export const tagsModule = {
  name: 'tags',
  events: [tagEvents, verificationTagEvents],
  projectors: [tagsProjector],
  routes: tagRoutes,
  errors: tagErrors,
  extensions: [verificationTagsExtension],
} satisfies FeatureModule;
