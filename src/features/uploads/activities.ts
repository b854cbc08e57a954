import type { BlobStore } from '../../core/blob-store.js';
import { systemContext } from '../../core/es/commands.js';
import type { Config } from '../../core/config.js';
import { runCommand } from '../../core/es/decider.js';
import type { EventStore } from '../../core/es/event-store.js';
import type { ActivityImplementations } from '../../core/es/workflow.js';
import { uploadDecider, uploadStream } from './decider.js';
import { uploadDeletableAt } from '../../../workflows/uploads/policy.js';
import type { UploadExpiryActivities } from '../../../workflows/uploads/workflow.js';
import type { SweepSource } from '../../core/es/workflow.js';
import { UPLOAD_EXPIRY_GRACE_MS } from '../../../workflows/uploads/policy.js';
import { expiredReceivedUploads } from '../../../projections/uploads/index.js';

export interface UploadActivityDeps {
  store: EventStore;
  blobs: BlobStore;
  now: () => Date;
  config: Pick<Config, 'PROCESSING_REGION'>;
}

/**
 * The expiry step. Safe to run twice at once (two service processes resuming the same run):
 * UploadExpired is appended against the stream revision it was decided on, so a racing
 * UploadUsed or a second UploadExpired makes one of them decide again on the fresh stream; the
 * file is deleted only once the stream says expired, and deleting it again changes nothing.
 */
export function createUploadActivities(deps: UploadActivityDeps): ActivityImplementations<UploadExpiryActivities> {
  return {
    async expireUpload(_context, nonce) {
      const stream = uploadStream(nonce);
      const history = await deps.store.readStream(stream);
      if (history.length === 0) return { outcome: 'missing' };
      // The events of an upload belong to the account that created it (its audit history), and carry the correlation id of the request that created it.
      const accountId = history[0]!.metadata.account_id;
      const context = systemContext(deps, { actor: { type: 'system', id: 'upload-expiry' }, correlationId: history[0]!.metadata.correlation_id, accountId });
      const outcome = await runCommand(deps.store, stream, uploadDecider, { type: 'Expire', now: context.now }, context);
      const { state } = outcome;
      switch (state.status) {
        case 'expired':
          await deps.blobs.delete(state.blobKey);
          return { outcome: 'expired' };
        case 'received':
          return { outcome: 'not_due', dueAt: uploadDeletableAt(state.expiresAt).getTime() };
        case 'used':
          // The verification holds its own copy (verifications/<id>/…); the upload's file was
          // deleted when it was taken, and nothing of the verification's is touched here.
          return { outcome: 'used' };
        case 'none':
          return { outcome: 'missing' };
      }
    },
  };
}

/**
 * Unused uploads due for deletion and not deleted: covers a crash between UploadReceived and
 * `start`, and runs that failed. Only those due: the run of an upload still valid was started
 * by its PUT, and starting one per waiting upload every sweep would cost a call each (Temporal).
 */
export async function uploadExpirySweep({ knex, now }: SweepSource) {
  const uploads = await expiredReceivedUploads(knex, new Date(now.getTime() - UPLOAD_EXPIRY_GRACE_MS));
  return uploads.map(({ nonce, expires_at }) => ({ id: nonce, input: { expires_at } }));
}
