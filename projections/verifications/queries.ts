import type { Knex } from 'knex';
import { extensionColumns, extensionsOf, type ResourceExtension } from '../../src/core/module/extensions.js';
import { jsonColumn } from '../../src/core/es/json.js';
import { preparedQuery } from '../../src/core/es/prepared.js';
import type { GradeData, RenditionKind, StoredFile, VerificationStatus } from '../../src/features/verifications/events.js';

/** A row of the verifications read model (projection.ts owns the tables; this file names them once). */
export interface VerificationRow {
  id: string;
  account_id: string;
  status: VerificationStatus;
  failure_reason: string | null;
  verification_mode: 'raw_pair' | 'image_only';
  name: string;
  short_code: string;
  pipeline_build: string;
  image: unknown;
  raw: unknown;
  billing: unknown;
  capture: unknown;
  anonymous_origin: string | null;
  result: boolean | null;
  result_confidence: number;
  assurance_level: GradeData['assurance_level'] | null;
  assurance_reason: string | null;
  verdict: GradeData['verdict'];
  verdict_reason: GradeData['verdict_reason'];
  evidence_report: unknown;
  capture_verified: boolean | null;
  raw_metadata: unknown;
  image_metadata: unknown;
  rendition_info: unknown;
  rendition_corrected_info: unknown;
  renditions: unknown;
  /** When the RAW's file was deleted (RawFileDiscarded); null while it is kept. */
  raw_discarded_at: Date | string | null;
  /** When the anonymous claim window closed and the files were deleted (ClaimWindowClosed). */
  files_expired_at: Date | string | null;
  created_at: Date | string;
  updated_at: Date | string;
  last_position: string;
}

export interface ResultRow {
  id: string;
  verification_id: string;
  verificator_id: string;
  analysis: string;
  result: boolean | null;
  confidence_score: number;
  details: unknown;
  created_at: Date | string;
  updated_at: Date | string;
}

export type RenditionRef = { blob_key: string; content_type: string };

export const verificationsTable = (knex: Knex) => knex<VerificationRow>('verifications');
export const resultsTable = (knex: Knex) => knex<ResultRow>('verification_results');

export const findVerification = (knex: Knex, id: string): Promise<VerificationRow | undefined> => verificationsTable(knex).where({ id }).first();

/** An account's number of verifications (kept by the projector: the unfiltered list's total), as a subquery. */
export const verificationCount = (knex: Knex, accountId: string): Knex.QueryBuilder => knex('verification_counts').where({ account_id: accountId }).select('total');

/** A verification row as read with its results and other features' fields (`extra`) in one query. */
export type ReadRow = VerificationRow & { results: ResultRow[]; extra: Record<string, unknown> };

/**
 * Selects the rows of `query` (which selects from verifications: its filters, order, limit and
 * offset) with their results (JSON, oldest first) and the given extension columns
 * (core/module/extensions.ts), so a page or a single record is one query. The rows are chosen first,
 * in a derived table, and the correlated subqueries run for them only: on the rows themselves,
 * PostgreSQL evaluated them below the limit, for every row a deep offset skips (D-057).
 * A page is ordered by readRowsJson, which wraps it.
 */
export function selectReadRows(knex: Knex, query: Knex.QueryBuilder, extra: Record<string, Knex.Raw>): Knex.QueryBuilder {
  return knex
    .from(query.select('verifications.*').as('verifications'))
    .select(
      'verifications.*',
      knex.raw(`coalesce((select json_agg(r order by r.created_at, r.analysis) from verification_results r where r.verification_id = verifications.id), '[]') as results`),
      ...Object.entries(extra).map(([name, sql]) => knex.raw('(?) as ??', [sql, `extra_${name}`])),
    );
}

/**
 * The rows `page` selects (selectReadRows) as one JSON array, as text, in `order`: a list is one
 * value for the database to send, not a row of ~30 columns per verification that PGlite's wire
 * protocol parser in JavaScript would take apart, convert and copy across threads (D-071).
 */
export function readRowsJson(knex: Knex, page: Knex.QueryBuilder, order: { column: string; order: 'asc' | 'desc' }[]): Knex.Raw {
  const by = order.map(({ order: direction }) => `?? ${direction === 'desc' ? 'desc' : 'asc'}`).join(', ');
  return knex.raw(`coalesce((select json_agg(page order by ${by}) from (?) as page), '[]')::text`, [...order.map(({ column }) => `page.${column}`), page]);
}

/**
 * A list read as readRowsJson's text: its rows parsed. Timestamps stay ISO text (the views read
 * them as dates) and `last_position` arrives as a JSON number (no view reads it).
 */
export const parseReadRows = (json: unknown, extra: Record<string, Knex.Raw>): ReadRow[] =>
  (JSON.parse(String(json)) as Record<string, unknown>[]).map((row) => parseReadRow(row, extra));

/** A row selected by selectReadRows, its JSON columns parsed. */
export function parseReadRow(row: Record<string, unknown>, extra: Record<string, Knex.Raw>): ReadRow {
  const fields = Object.fromEntries(Object.keys(extra).map((name) => [name, jsonColumn(row[`extra_${name}`])]));
  return { ...(row as unknown as VerificationRow), results: jsonColumn<ResultRow[]>(row.results), extra: fields };
}

/** What a read needs: the database and the features that add fields to a Verification (core/module/extensions.ts). */
export interface ReadContext {
  knex: Knex;
  extensions: readonly ResourceExtension[];
}

/** The extension columns of a verification read. */
export const readColumns = (context: ReadContext): Record<string, Knex.Raw> =>
  extensionColumns(context.knex, extensionsOf(context.extensions, 'verification'), 'verifications.id');

const byId = preparedQuery((context: ReadContext, id) => selectReadRows(context.knex, verificationsTable(context.knex).where({ id }), readColumns(context)).first(), 1);

/**
 * A verification with its results and extension fields: the read path's hot query (clients poll
 * it), one named prepared statement compiled once per context (core/es/prepared.ts, D-056).
 */
export async function findVerificationWithResults(context: ReadContext, id: string): Promise<ReadRow | undefined> {
  const [row] = await byId(context, id);
  return row ? parseReadRow(row, readColumns(context)) : undefined;
}

/** Results of many verifications in one query, oldest first. */
export const resultsOf = (knex: Knex, ids: string[]): Promise<ResultRow[]> =>
  ids.length ? resultsTable(knex).whereIn('verification_id', ids).orderBy([{ column: 'created_at' }, { column: 'analysis' }]) : Promise.resolve([]);

/** Verifications still to be processed, oldest first (the workflow sweeps restart these). */
export const unfinishedVerificationIds = (knex: Knex): Promise<string[]> =>
  verificationsTable(knex).whereIn('status', ['queued', 'in_progress']).orderBy('created_at').pluck('id');

export const renditionsOf = (row: VerificationRow): Partial<Record<RenditionKind, RenditionRef>> => jsonColumn(row.renditions) ?? {};
export const imageOf = (row: VerificationRow): StoredFile => jsonColumn<StoredFile>(row.image);
export const rawOf = (row: VerificationRow): StoredFile | null => (row.raw ? jsonColumn<StoredFile>(row.raw) : null);

/** How many ids a retention sweep starts at a time (the rest on its next pass). */
const RETENTION_SWEEP_BATCH = 200;

/** Finished verifications whose RAW's file is still kept: the RAW discard sweep's work (a run a crash cut short, or finished before the discard existed: rendered first if registered, retention.ts); a closed claim window took the RAW with the other files. */
export const rawsToDiscard = (knex: Knex): Promise<string[]> =>
  verificationsTable(knex)
    .whereIn('status', ['completed', 'failed'])
    .whereNotNull('raw')
    .whereNull('raw_discarded_at')
    .whereNull('files_expired_at')
    .orderBy('updated_at').limit(RETENTION_SWEEP_BATCH).pluck('id');

/** Anonymous verifications still unclaimed whose claim window ended by `closedBy` and whose files are still kept: the claim window sweep's work. */
export const claimWindowsDue = (knex: Knex, closedBy: Date): Promise<{ id: string; created_at: Date | string }[]> =>
  verificationsTable(knex)
    .whereNotNull('anonymous_origin')
    .whereRaw('account_id = anonymous_origin')
    .whereNull('files_expired_at')
    .where('created_at', '<=', closedBy)
    .orderBy('created_at')
    .limit(RETENTION_SWEEP_BATCH)
    .select('id', 'created_at');
