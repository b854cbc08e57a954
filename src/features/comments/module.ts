import type { FeatureModule } from '../../core/module.js';
import { commentErrors } from './errors.js';
import { commentEvents } from './events.js';
import { commentsProjector } from '../../../projections/comments/projection.js';
import { commentCountColumn } from './queries.js';
import { commentRoutes } from './routes.js';

/** Comments on verifications: internal to the owning account; `comment_count` on every Verification. */
export const commentsModule = {
  name: 'comments',
  events: [commentEvents],
  projectors: [commentsProjector],
  routes: commentRoutes,
  errors: commentErrors,
  extensions: [
    {
      resource: 'verification',
      fieldColumns: (knex, idColumn) => ({ comment_count: commentCountColumn(knex, idColumn) }),
    },
  ],
} satisfies FeatureModule;
