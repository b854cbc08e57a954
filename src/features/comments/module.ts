import type { FeatureModule } from '../../core/module/module.js';
import { accountStreams } from '../../core/es/stream-read-rules.js';
import { commentsStream } from './decider.js';
import { commentErrors } from './errors.js';
import { commentEvents } from './events.js';
import { commentCountColumn } from '../../../projections/comments/index.js';
import { commentRoutes } from './routes.js';

/** Comments on verifications: internal to the owning account; `comment_count` on every Verification. */
export const commentsModule = {
  name: 'comments',
  events: [commentEvents],
  routes: commentRoutes,
  errors: commentErrors,
  extensions: [
    {
      resource: 'verification',
      fieldColumns: (knex, idColumn) => ({ comment_count: commentCountColumn(knex, idColumn) }),
    },
  ],
  // Their history: for every user of the owning account, as the feature's own reads.
  streamReadRules: [accountStreams(commentsStream)],
} satisfies FeatureModule;
