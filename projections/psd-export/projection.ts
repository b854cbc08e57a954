import { assertNever, parseEvent } from '../../src/core/events.js';
import { type Projector, unapplied } from '../../src/core/projector.js';
import { streamInstance } from '../../src/core/streams.js';
import { psdExportEvents } from '../../src/features/psd-export/events.js';

/**
 * The current PSD export of each verification (one row per verification: a regeneration replaces
 * the row's export), as the status (spec 2.6) and the Verification's `psd_export` show it, and what
 * the export workflow's sweep starts runs for (unfinished builds, expiries due).
 */
export const psdExportsProjector: Projector = {
  name: 'psd_exports',
  version: 1,
  tables: ['psd_exports'],
  async migrate(knex) {
    await knex.raw(`
      create table if not exists psd_exports (
        verification_id uuid primary key,
        account_id uuid,
        export_id uuid not null,
        status text not null,
        file_size_bytes bigint,
        canvas_width integer,
        canvas_height integer,
        downloads_used integer not null,
        expires_at timestamptz,
        error text,
        created_at timestamptz not null,
        updated_at timestamptz not null,
        last_position numeric(20, 0) not null
      )`);
    // The sweep's two questions: builds not finished, completed exports past their expiry.
    await knex.raw(`create index if not exists psd_exports_unfinished on psd_exports (created_at) where status in ('queued', 'in_progress')`);
    await knex.raw(`create index if not exists psd_exports_expiring on psd_exports (expires_at) where status = 'completed'`);
  },
  async apply(trx, stored) {
    const event = parseEvent(psdExportEvents, stored);
    if (!event) return;
    const verification_id = streamInstance('psdexport', stored.stream);
    const position = stored.position.toString();
    // Steps of an export the row no longer holds (a regeneration replaced it) change nothing.
    const current = (exportId: string) => unapplied(trx, 'psd_exports', { verification_id, export_id: exportId }, position);
    switch (event.type) {
      case 'PsdExportRequested': {
        const d = event.data;
        const row = {
          account_id: stored.metadata.account_id,
          export_id: d.export_id,
          status: 'queued',
          file_size_bytes: null,
          canvas_width: null,
          canvas_height: null,
          downloads_used: 0,
          expires_at: null,
          error: null,
          created_at: d.requested_at,
          updated_at: d.requested_at,
          last_position: position,
        };
        await trx('psd_exports')
          .insert({ verification_id, ...row })
          .onConflict('verification_id')
          .merge()
          .where('psd_exports.last_position', '<', position);
        return;
      }
      case 'PsdExportStarted':
        await current(event.data.export_id).update({ status: 'in_progress', updated_at: event.data.started_at, last_position: position });
        return;
      case 'PsdExportCompleted': {
        const d = event.data;
        await current(d.export_id).update({
          status: 'completed',
          file_size_bytes: d.file_size_bytes,
          canvas_width: d.canvas_width,
          canvas_height: d.canvas_height,
          expires_at: d.expires_at,
          updated_at: d.completed_at,
          last_position: position,
        });
        return;
      }
      case 'PsdExportFailed':
        await current(event.data.export_id).update({ status: 'failed', error: event.data.reason, updated_at: event.data.failed_at, last_position: position });
        return;
      case 'PsdExportDownloaded':
        await current(event.data.export_id).update({ downloads_used: event.data.downloads_used, updated_at: event.data.downloaded_at, last_position: position });
        return;
      case 'PsdExportExpired':
        await current(event.data.export_id).update({ status: 'expired', updated_at: event.data.expired_at, last_position: position });
        return;
      default:
        assertNever(event);
    }
  },
};
