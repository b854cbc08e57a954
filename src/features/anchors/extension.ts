import type { ResourceExtension } from '../../core/module/extensions.js';
import { anchoredInColumn } from '../../../projections/anchors/index.js';

/** What anchoring adds to the Verification (spec 2.1): its `anchored_in`, the batches it is sealed in ([] until it is). */
export const verificationAnchorsExtension: ResourceExtension = {
  resource: 'verification',
  fieldColumns: (knex, idColumn) => ({ anchored_in: anchoredInColumn(knex, idColumn) }),
};
