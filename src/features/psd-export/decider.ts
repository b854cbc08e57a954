import type { Decider } from '../../core/es/decider.js';
import { assertNever } from '../../core/es/events.js';
import { canvasRefusal, downloadLimitReached, notExportable, psdExportExpired, psdExportNotFound, psdNotReady } from './errors.js';
import { psdExportEvents, type PsdExportEvent } from './events.js';
import { PSD_DOWNLOADS_LIMIT, psdExportExpiresAt } from '../../../workflows/psd-export/policy.js';

export { psdExportStream } from './events.js';

/** What the verification is when an export is requested, as its read model says (the decider stays pure). */
export interface ExportableFacts {
  status: string;
  mode: 'raw_pair' | 'image_only';
  /** The photo's size as the analysis decoded it (orientation applied): the canvas. Null when not recorded (the build checks it then). */
  canvas: { width: number; height: number } | null;
}

export interface BuiltFile {
  blob_key: string;
  sha256: string;
  file_size_bytes: number;
  canvas_width: number;
  canvas_height: number;
}

export type PsdExportCommand =
  | { type: 'Request'; export_id: string; verification: ExportableFacts; now: Date }
  | { type: 'Start'; export_id: string; now: Date }
  | ({ type: 'Complete'; export_id: string; now: Date } & BuiltFile)
  | { type: 'Fail'; export_id: string; reason: string; now: Date }
  | { type: 'Download'; now: Date; url_expires_at: Date }
  | { type: 'Expire'; export_id: string; now: Date; reason?: 'verification_deleted' };

export type PsdExportStatus = 'queued' | 'in_progress' | 'completed' | 'failed' | 'expired';

/** The current export of the verification (the latest requested), or none. */
export type PsdExportState =
  | { status: 'none' }
  | {
      status: PsdExportStatus;
      exportId: string;
      requestedAt: string;
      regeneration: boolean;
      file: (BuiltFile & { completedAt: string; expiresAt: string }) | null;
      downloadsUsed: number;
      error: string | null;
    };

type Current = Exclude<PsdExportState, { status: 'none' }>;

/** The events of the export `exportId` change the state only while it is the current one (a stale run's late step changes nothing). */
const ofCurrent = (state: PsdExportState, exportId: string): state is Current => state.status !== 'none' && state.exportId === exportId;

/** Whether a request makes a new export: none yet, or the last one failed or expired (then free: a regeneration). */
export const needsNewExport = (state: PsdExportState): boolean => state.status === 'none' || state.status === 'failed' || state.status === 'expired';

export const psdExportDecider: Decider<PsdExportState, PsdExportCommand, typeof psdExportEvents> = {
  catalogue: psdExportEvents,
  initialState: () => ({ status: 'none' }),

  evolve(state, event): PsdExportState {
    switch (event.type) {
      case 'PsdExportRequested':
        return { status: 'queued', exportId: event.data.export_id, requestedAt: event.data.requested_at, regeneration: event.data.regeneration, file: null, downloadsUsed: 0, error: null };
      case 'PsdExportStarted':
        return ofCurrent(state, event.data.export_id) ? { ...state, status: 'in_progress' } : state;
      case 'PsdExportCompleted': {
        if (!ofCurrent(state, event.data.export_id)) return state;
        const { blob_key, sha256, file_size_bytes, canvas_width, canvas_height, completed_at, expires_at } = event.data;
        return { ...state, status: 'completed', file: { blob_key, sha256, file_size_bytes, canvas_width, canvas_height, completedAt: completed_at, expiresAt: expires_at } };
      }
      case 'PsdExportFailed':
        return ofCurrent(state, event.data.export_id) ? { ...state, status: 'failed', error: event.data.reason } : state;
      case 'PsdExportDownloaded':
        return ofCurrent(state, event.data.export_id) ? { ...state, downloadsUsed: event.data.downloads_used } : state;
      case 'PsdExportExpired':
        return ofCurrent(state, event.data.export_id) ? { ...state, status: 'expired' } : state;
      default:
        return assertNever(event);
    }
  },

  decide(command, state): PsdExportEvent[] {
    const at = command.now.toISOString();
    switch (command.type) {
      case 'Request': {
        const { verification } = command;
        if (verification.mode !== 'raw_pair') throw notExportable('image_only', verification.status);
        if (verification.status !== 'completed') throw notExportable('not_completed', verification.status);
        // Idempotent: an export that exists and has neither failed nor expired is returned unchanged.
        if (!needsNewExport(state)) return [];
        // Too large to be a PSD (or for one export's memory): refused before anything is reserved.
        const tooLarge = verification.canvas && canvasRefusal(verification.canvas.width, verification.canvas.height);
        if (tooLarge) throw tooLarge;
        return [{ type: 'PsdExportRequested', data: { export_id: command.export_id, regeneration: state.status !== 'none', requested_at: at } }];
      }
      case 'Start':
        if (!ofCurrent(state, command.export_id) || state.status !== 'queued') return [];
        return [{ type: 'PsdExportStarted', data: { export_id: command.export_id, started_at: at } }];
      case 'Complete': {
        // Once: a retried or resumed run completing again changes nothing.
        if (!ofCurrent(state, command.export_id) || (state.status !== 'queued' && state.status !== 'in_progress')) return [];
        const { blob_key, sha256, file_size_bytes, canvas_width, canvas_height } = command;
        return [
          {
            type: 'PsdExportCompleted',
            data: { export_id: command.export_id, blob_key, sha256, file_size_bytes, canvas_width, canvas_height, completed_at: at, expires_at: psdExportExpiresAt(command.now).toISOString() },
          },
        ];
      }
      case 'Fail':
        if (!ofCurrent(state, command.export_id) || (state.status !== 'queued' && state.status !== 'in_progress')) return [];
        return [{ type: 'PsdExportFailed', data: { export_id: command.export_id, reason: command.reason, failed_at: at } }];
      case 'Download': {
        if (state.status === 'none') throw psdExportNotFound();
        if (state.status === 'expired') throw psdExportExpired(state.file!.expiresAt);
        if (state.status !== 'completed' || !state.file) throw psdNotReady(state.status);
        // Past its 30 days though the expiry is not recorded yet (the timer fires at that instant or later).
        if (command.now.getTime() >= new Date(state.file.expiresAt).getTime()) throw psdExportExpired(state.file.expiresAt);
        if (state.downloadsUsed >= PSD_DOWNLOADS_LIMIT) throw downloadLimitReached();
        return [
          {
            type: 'PsdExportDownloaded',
            data: { export_id: state.exportId, downloads_used: state.downloadsUsed + 1, downloaded_at: at, url_expires_at: command.url_expires_at.toISOString() },
          },
        ];
      }
      case 'Expire':
        if (!ofCurrent(state, command.export_id) || state.status !== 'completed' || !state.file) return [];
        // A deleted verification's export ends at once (src/features/psd-export/cleanup-activities.ts); any other at its expiry.
        if (!command.reason && command.now.getTime() < new Date(state.file.expiresAt).getTime()) return [];
        return [{ type: 'PsdExportExpired', data: { export_id: command.export_id, blob_key: state.file.blob_key, expired_at: at, ...(command.reason && { reason: command.reason }) } }];
      default:
        return assertNever(command);
    }
  },
};
