import type { FeatureModule } from '../../core/module/module.js';
import { accountStreams } from '../../core/es/stream-read-rules.js';
import { verificationTagsStream, vocabularyStream } from './decider.js';
import { tagErrors } from './errors.js';
import { tagEvents, verificationTagEvents } from './events.js';
import { verificationTagsExtension } from './extension.js';
import { tagRoutes } from './routes.js';

/** Tags: the account's vocabulary, the tags on each verification, and the Verification's tags field, filters and search. */
export const tagsModule = {
  name: 'tags',
  events: [tagEvents, verificationTagEvents],
  routes: tagRoutes,
  errors: tagErrors,
  extensions: [verificationTagsExtension],
  // Their history: for every user of the owning account, as the feature's own reads.
  streamReadRules: [accountStreams(vocabularyStream), accountStreams(verificationTagsStream)],
} satisfies FeatureModule;
