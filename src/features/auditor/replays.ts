import type { BundleReplays } from '../../core/audit/audit-verify.js';
import { replayPsdExportStream } from '../../../projections/psd-export/index.js';
import { replayVerificationStream } from '../../../projections/verifications/index.js';

/**
 * The read models' own folds, by stream kind (issue 35): what the service's bundle shows is
 * computed with them, and what `photoverify audit verify` and the auditor's page replay (the page
 * loads the same compiled files: assets.ts). Pure, like the folds: the CLI imports it alone.
 */
export const bundleReplays: BundleReplays = {
  verification: replayVerificationStream,
  psdexport: replayPsdExportStream,
};
