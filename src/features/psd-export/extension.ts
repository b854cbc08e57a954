import type { ResourceExtension } from '../../core/extensions.js';
import { psdExportColumn } from './queries.js';

/** What the PSD export adds to the Verification (spec 2.1): its `psd_export`, the export's status (null when none was requested). */
export const verificationPsdExportExtension: ResourceExtension = {
  resource: 'verification',
  fieldColumns: (knex, idColumn) => ({ psd_export: psdExportColumn(knex, idColumn) }),
};
