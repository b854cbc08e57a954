import { assertNever, parseEvent } from '../../src/core/es/events.js';
import { usageEvents } from '../../src/features/usage/events.js';
import { type Projector, unapplied } from '../../src/core/es/projector.js';

/**
 * One row per metered verification (usage_meterings) and one per reserved PSD export
 * (usage_psd_exports: reserved, then charged or released); monthly usage is summed from them at
 * read time.
 */
export const usageProjector: Projector = {
  name: 'usage',
  version: 2,
  tables: ['usage_meterings', 'usage_psd_exports'],
  async migrate(knex) {
    await knex.raw(`
      create table if not exists usage_meterings (
        verification_id uuid primary key,
        account_id uuid not null,
        month text not null,
        overage boolean not null,
        price numeric(10, 2) not null,
        released boolean not null default false,
        metered_at timestamptz not null,
        last_position numeric(20, 0) not null
      )`);
    await knex.raw('create index if not exists usage_account_month on usage_meterings (account_id, month)');
    // The release sweep reads recent reservations (workflows/usage/release-workflow.ts).
    await knex.raw('create index if not exists usage_metered_at on usage_meterings (metered_at)');
    await knex.raw(`
      create table if not exists usage_psd_exports (
        export_id uuid primary key,
        account_id uuid not null,
        month text not null,
        verification_id uuid not null,
        overage boolean not null,
        price numeric(10, 2) not null,
        status text not null,
        reserved_at timestamptz not null,
        last_position numeric(20, 0) not null
      )`);
    await knex.raw('create index if not exists usage_psd_exports_account_month on usage_psd_exports (account_id, month)');
    // The reservation release sweep (every WORKFLOW_SWEEP_MS) looks only at reservations still open: normally none.
    await knex.raw("create index if not exists usage_psd_exports_reserved on usage_psd_exports (reserved_at) where status = 'reserved'");
  },
  async apply(trx, stored) {
    const event = parseEvent(usageEvents, stored);
    if (!event) return;
    const position = stored.position.toString();
    switch (event.type) {
      case 'VerificationMetered': {
        const d = event.data;
        await trx('usage_meterings')
          .insert({ verification_id: d.verification_id, account_id: d.account_id, month: d.month, overage: d.overage, price: d.price, metered_at: d.metered_at, last_position: position })
          .onConflict('verification_id')
          .ignore();
        return;
      }
      case 'MeteringReleased':
        await unapplied(trx, 'usage_meterings', { verification_id: event.data.verification_id }, position).update({ released: true, last_position: position });
        return;
      case 'PsdExportReserved': {
        const d = event.data;
        await trx('usage_psd_exports')
          .insert({ export_id: d.export_id, account_id: d.account_id, month: d.month, verification_id: d.verification_id, overage: d.overage, price: d.price, status: 'reserved', reserved_at: d.reserved_at, last_position: position })
          .onConflict('export_id')
          .ignore();
        return;
      }
      case 'PsdExportMetered':
      case 'PsdExportReleased':
        await unapplied(trx, 'usage_psd_exports', { export_id: event.data.export_id }, position).update({
          status: event.type === 'PsdExportMetered' ? 'charged' : 'released',
          last_position: position,
        });
        return;
      default:
        assertNever(event);
    }
  },
};
