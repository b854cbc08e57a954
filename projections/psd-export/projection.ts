import { parseEvent } from '../../src/core/es/events.js';
import { type Projector, unapplied } from '../../src/core/es/projector.js';
import { streamInstance } from '../../src/core/es/streams.js';
import { psdExportEvents } from '../../src/features/psd-export/events.js';
import { psdExportChange } from './replay.js';

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
    // What the event sets comes from the one fold the auditor's replay runs too (replay.ts).
    const change = psdExportChange({ type: event.type, data: event.data, metadata: stored.metadata });
    if (!change) return;
    const verification_id = streamInstance('psdexport', stored.stream);
    const position = stored.position.toString();
    if (change.kind === 'requested') {
      const row = { ...change.state, last_position: position };
      await trx('psd_exports')
        .insert({ verification_id, ...row })
        .onConflict('verification_id')
        .merge()
        .where('psd_exports.last_position', '<', position);
      return;
    }
    // Steps of an export the row no longer holds (a regeneration replaced it) change nothing.
    await unapplied(trx, 'psd_exports', { verification_id, export_id: change.export_id }, position).update({ ...change.columns, last_position: position });
  },
};
