import { accountsProjector } from './features/accounts/projection.js';
import { apiKeysProjector } from './features/apikeys/projection.js';
import { attestationsProjector } from './features/attestations/projection.js';
import type { Projector } from './core/projector.js';
import { streamOwnersProjector } from './features/audit/projection.js';
import { usageProjector } from './features/usage/projection.js';
import { verificationsProjector } from './features/verifications/projection.js';

/** Every read model of the service, in the order they are migrated. */
export const allProjectors: readonly Projector[] = [accountsProjector, apiKeysProjector, streamOwnersProjector, verificationsProjector, attestationsProjector, usageProjector];
