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
 * Uploads still waiting for a verification whose id expired at or before `expiredBy`, oldest
 * first (the expiry workflow's sweep: normally none, their runs having deleted them already).
 */
export async function expiredReceivedUploads(knex: Knex, expiredBy: Date): Promise<{ nonce: string; expires_at: string }[]> {
  const rows = await uploadsTable(knex).where({ status: 'received' }).andWhere('expires_at', '<=', expiredBy).orderBy('expires_at').select('nonce', 'expires_at');
  return rows.map((r) => ({ nonce: r.nonce, expires_at: new Date(r.expires_at).toISOString() }));
}
