import { z } from 'zod';
import type { ResourceExtension } from '../../core/module/extensions.js';
import { requestIdColumn, verificationsOfRequest } from '../../../projections/requests/index.js';

/**
 * What verification requests add to the Verification (spec 2.1, 4.1): its `request_id`, the
 * request the verification answered (null for one uploaded otherwise), and the `request_id` list
 * filter. A submission is recorded on its request before its verification exists, so the field
 * is there from the verification's first read.
 */
export const verificationRequestExtension: ResourceExtension = {
  resource: 'verification',
  fieldColumns: (knex, idColumn) => ({ request_id: requestIdColumn(knex, idColumn) }),
  listParameters: {
    request_id: z.uuid().optional().describe('Only the verifications submitted through this verification request of yours.'),
  },
  filter({ knex, accountId, query }) {
    return typeof query.request_id === 'string' ? verificationsOfRequest(knex, accountId, query.request_id) : null;
  },
};
