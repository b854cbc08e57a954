import { accountsProjector } from './accounts.js';
import { apiKeysProjector } from './api-keys.js';
import { attestationsProjector } from './attestations.js';
import type { Projector } from './projector.js';
import { streamOwnersProjector } from './stream-owners.js';
import { usageProjector } from './usage.js';
import { verificationsProjector } from './verifications.js';

/** Every read model of the service, in the order they are migrated. */
export const allProjectors: readonly Projector[] = [accountsProjector, apiKeysProjector, streamOwnersProjector, verificationsProjector, attestationsProjector, usageProjector];
