import type { Knex } from 'knex';

/** A row of the uploads read model (projection.ts owns the table). */
export interface UploadRow {
  nonce: string;
  account_id: string | null;
  status: 'received' | 'used' | 'expired';
  expires_at: Date | string;
  received_at: Date | string;
  verification_id: string | null;
  updated_at: Date | string;
  last_position: string;
}

export const uploadsTable = (knex: Knex) => knex<UploadRow>('uploads');

/**
 * Uploads whose file waits for a verification or its expiry, soonest to expire first (the
 * expiry workflow's sweep). Bounded by what one hour of uploads holds.
 */
export async function receivedUploads(knex: Knex): Promise<{ nonce: string; expires_at: string }[]> {
  const rows = await uploadsTable(knex).where({ status: 'received' }).orderBy('expires_at').select('nonce', 'expires_at');
  return rows.map((r) => ({ nonce: r.nonce, expires_at: new Date(r.expires_at).toISOString() }));
}
