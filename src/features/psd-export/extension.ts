import type { ResourceExtension } from '../../core/module/extensions.js';
import { psdExportColumn, storedPsdBytesColumn } from '../../../projections/psd-export/index.js';
import { PSD_DOWNLOADS_LIMIT } from '../../../workflows/psd-export/policy.js';

/** What the PSD export adds to the Verification (spec 2.1): its `psd_export`, the export's status (null when none was requested). */
export const verificationPsdExportExtension: ResourceExtension = {
  resource: 'verification',
  fieldColumns: (knex, idColumn) => ({ psd_export: psdExportColumn(knex, idColumn, PSD_DOWNLOADS_LIMIT) }),
};

/** What the PSD export adds to an account's usage: the disk its export files take now (issue 36 item 3). */
export const usagePsdExportExtension: ResourceExtension = {
  resource: 'account_usage',
  fieldColumns: (knex, idColumn) => ({ psd_export_stored_bytes: storedPsdBytesColumn(knex, idColumn) }),
};
