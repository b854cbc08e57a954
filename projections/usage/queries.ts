import type { Knex } from 'knex';

/** A row of the usage_meterings read model (projection.ts owns the table): one metered verification. */
export interface UsageMeteringRow {
  verification_id: string;
  account_id: string;
  /** Calendar month in UTC, e.g. '2026-11'. */
  month: string;
  overage: boolean;
  /** numeric: the driver returns a string. */
  price: string | number;
  released: boolean;
  metered_at: Date | string;
  last_position: string;
}

export const usageMeteringsTable = (knex: Knex) => knex<UsageMeteringRow>('usage_meterings');

/** The meterings that count for an account's month (released ones, e.g. of failed verifications, do not). */
export const chargedMeterings = (knex: Knex, accountId: string, month: string): Promise<Pick<UsageMeteringRow, 'overage' | 'price'>[]> =>
  usageMeteringsTable(knex).where({ account_id: accountId, month, released: false }).select('overage', 'price');

/** A row of the usage_psd_exports read model (projection.ts): one reserved PSD export. */
export interface UsagePsdExportRow {
  export_id: string;
  account_id: string;
  month: string;
  verification_id: string;
  overage: boolean;
  /** numeric: the driver returns a string. */
  price: string | number;
  /** reserved (requested, not ended), charged (completed) or released (failed: never charged). */
  status: 'reserved' | 'charged' | 'released';
  reserved_at: Date | string;
  last_position: string;
}

/** The PSD exports that hold a place in an account's month: charged, or reserved while they are made. */
export const heldPsdExports = (knex: Knex, accountId: string, month: string): Promise<Pick<UsagePsdExportRow, 'overage' | 'price' | 'status'>[]> =>
  knex<UsagePsdExportRow>('usage_psd_exports').where({ account_id: accountId, month }).whereNot({ status: 'released' }).select('overage', 'price', 'status');

/**
 * Reservations metered in [from, before), not released, whose verification has no row in the
 * verifications read model: what a process killed between metering and queueing left (the
 * release workflow re-checks the verification stream before it releases).
 */
export const orphanedMeterings = (knex: Knex, window: { from: Date; before: Date }): Promise<Pick<UsageMeteringRow, 'account_id' | 'verification_id' | 'month'>[]> =>
  usageMeteringsTable(knex)
    .where({ released: false })
    .andWhere('metered_at', '>=', window.from)
    .andWhere('metered_at', '<', window.before)
    .whereNotExists((q) => {
      q.select(knex.raw('1')).from('verifications').whereRaw('verifications.id = usage_meterings.verification_id');
    })
    .select('account_id', 'verification_id', 'month');

/**
 * PSD export reservations still `reserved` (neither charged nor released) made before `before`:
 * exports being built, and reservations a process killed before the export was recorded left
 * (the psd-export feature's reservation release sweep tells them apart). Few: a reservation is
 * reserved only while its export is made.
 */
export const reservedPsdExportsBefore = (knex: Knex, before: Date): Promise<Pick<UsagePsdExportRow, 'export_id' | 'account_id' | 'verification_id' | 'reserved_at'>[]> =>
  knex<UsagePsdExportRow>('usage_psd_exports').where({ status: 'reserved' }).andWhere('reserved_at', '<', before).orderBy('reserved_at').select('export_id', 'account_id', 'verification_id', 'reserved_at');
