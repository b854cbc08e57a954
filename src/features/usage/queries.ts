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
