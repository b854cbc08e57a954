import type { Decider } from '../../core/es/decider.js';
import { assertNever } from '../../core/es/events.js';
import { streamName } from '../../core/es/streams.js';
import { uploadAlreadyReceived, uploadExpired } from './errors.js';
import { uploadEvents, type UploadEvent } from './events.js';
import { uploadDeletableAt } from '../../../workflows/uploads/policy.js';

export const uploadStream = (nonce: string) => streamName('upload', nonce);

export type UploadCommand =
  | { type: 'Receive'; filename: string; size: number; sha256: string; blob_key: string; expires_at: string; now: Date }
  | { type: 'Use'; verification_id: string; now: Date }
  | { type: 'Expire'; now: Date };

/**
 * `none`: nothing recorded (not sent yet, or sent before uploads were recorded). `received`: the
 * file waits for a verification. `used`: a verification took its own copy. `expired`: unused
 * past its validity, its file deleted.
 */
export type UploadState =
  | { status: 'none' }
  | { status: 'received'; blobKey: string; expiresAt: string }
  | { status: 'used'; blobKey: string | null }
  | { status: 'expired'; blobKey: string };

export const uploadDecider: Decider<UploadState, UploadCommand, typeof uploadEvents> = {
  catalogue: uploadEvents,
  initialState: () => ({ status: 'none' }),

  evolve(state, event): UploadState {
    switch (event.type) {
      case 'UploadReceived':
        return { status: 'received', blobKey: event.data.blob_key, expiresAt: event.data.expires_at };
      case 'UploadUsed':
        return { status: 'used', blobKey: 'blobKey' in state ? state.blobKey : null };
      case 'UploadExpired':
        return { status: 'expired', blobKey: event.data.blob_key };
      default:
        return assertNever(event);
    }
  },

  decide(command, state): UploadEvent[] {
    switch (command.type) {
      case 'Receive': {
        // One PUT per upload id: the append's expected revision settles two racing PUTs.
        if (state.status !== 'none') throw uploadAlreadyReceived();
        const { filename, size, sha256, blob_key, expires_at, now } = command;
        return [{ type: 'UploadReceived', data: { filename, size, sha256, blob_key, expires_at, received_at: now.toISOString() } }];
      }
      case 'Use':
        if (state.status === 'expired') throw uploadExpired();
        if (state.status === 'used') return [];
        return [{ type: 'UploadUsed', data: { verification_id: command.verification_id, used_at: command.now.toISOString() } }];
      case 'Expire':
        // Only a received, unused file past its validity and the grace after it (policy.ts).
        if (state.status !== 'received' || command.now < uploadDeletableAt(state.expiresAt)) return [];
        return [{ type: 'UploadExpired', data: { blob_key: state.blobKey, expires_at: state.expiresAt, expired_at: command.now.toISOString() } }];
      default:
        return assertNever(command);
    }
  },
};
