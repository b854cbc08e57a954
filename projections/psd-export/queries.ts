import type { Knex } from 'knex';
import { verificationsTable } from '../verifications/index.js';

/** A row of the psd_exports read model (projection.ts owns the table). */
export interface PsdExportRow {
  verification_id: string;
  account_id: string | null;
  export_id: string;
  status: 'queued' | 'in_progress' | 'completed' | 'failed' | 'expired';
  expires_at: Date | string | null;
  created_at: Date | string;
}

export const psdExportsTable = (knex: Knex) => knex<PsdExportRow>('psd_exports');

/** What the status of an expired export says in `error` (its status stays `completed`: the spec's status has five values, none of them expired). */
export const EXPIRED_ERROR = 'The export expired 30 days after it was made and its file is deleted; request it again (free of charge).';

const isoUtc = (column: string) => `to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/**
 * The spec's PSD export status (2.6) of the verification in `idColumn`, as one JSON value (null when
 * none was requested): the one mapping, used by GET …/psd-export and, as a resource extension, by
 * the Verification's `psd_export` field, so the two always agree. `downloadsLimit` is the write
 * side's (workflows/psd-export/policy.ts), which the read side does not import (layout rule 3).
 */
export const psdExportColumn = (knex: Knex, idColumn: string, downloadsLimit: number): Knex.Raw =>
  knex.raw(
    `select json_build_object(
       'status', case when e.status = 'expired' then 'completed' else e.status end,
       'file_size_bytes', e.file_size_bytes,
       'canvas_width', e.canvas_width,
       'canvas_height', e.canvas_height,
       'downloads_used', e.downloads_used,
       'downloads_limit', ?::int,
       'expires_at', ${isoUtc('e.expires_at')},
       'error', case when e.status = 'expired' then ?::text else e.error end,
       'created_at', ${isoUtc('e.created_at')})
     from psd_exports e where e.verification_id = ??`,
    [downloadsLimit, EXPIRED_ERROR, idColumn],
  );

/** The bytes of the account in `idColumn`'s export files kept now: completed exports (an expired one's file is deleted). */
export const storedPsdBytesColumn = (knex: Knex, idColumn: string): Knex.Raw =>
  knex.raw(`select coalesce(sum(e.file_size_bytes), 0)::bigint from psd_exports e where e.account_id = ?? and e.status = 'completed'`, [idColumn]);

/** The status of a verification's export, or undefined when none was requested. */
export async function findPsdExportStatus(knex: Knex, verificationId: string, downloadsLimit: number): Promise<Record<string, unknown> | undefined> {
  const row = await knex.select(knex.raw('(?) as status', [psdExportColumn(knex, 'v.id', downloadsLimit)])).from(knex.raw('(select ?::uuid as id) as v', [verificationId])).first();
  const value = row?.status;
  if (value == null) return undefined;
  return typeof value === 'string' ? JSON.parse(value) : value;
}

/** Exports whose build has not ended (the sweep starts their runs: a crash may have come between the request and the start). */
export const unfinishedPsdExports = (knex: Knex): Promise<Pick<PsdExportRow, 'verification_id' | 'export_id'>[]> =>
  psdExportsTable(knex).whereIn('status', ['queued', 'in_progress']).orderBy('created_at').select('verification_id', 'export_id');

/** Completed exports past their expiry and not expired yet (normally none: their runs' timers expired them). */
export const expiredPsdExports = (knex: Knex, by: Date): Promise<Pick<PsdExportRow, 'verification_id' | 'export_id'>[]> =>
  psdExportsTable(knex).where({ status: 'completed' }).andWhere('expires_at', '<=', by).orderBy('expires_at').select('verification_id', 'export_id');

/** Of these export ids, those the psd_exports read model holds (the current export of a verification). */
export const recordedPsdExportIds = async (knex: Knex, exportIds: string[]): Promise<Set<string>> =>
  new Set(exportIds.length === 0 ? [] : (await psdExportsTable(knex).whereIn('export_id', exportIds).pluck('export_id')));

/**
 * Completed exports not expired by `by` whose verification has no row in the verifications read
 * model (deleted: the deletion workflow re-checks its stream before it ends the export).
 */
export const psdExportsOfDeletedVerifications = (knex: Knex, by: Date): Promise<Pick<PsdExportRow, 'verification_id' | 'export_id'>[]> =>
  psdExportsTable(knex)
    .where({ status: 'completed' })
    .andWhere('expires_at', '>', by)
    .whereNotExists(verificationsTable(knex).select(knex.raw('1')).whereRaw('verifications.id = psd_exports.verification_id'))
    .orderBy('expires_at')
    .select('verification_id', 'export_id');
