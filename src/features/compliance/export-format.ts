import { isoDate } from '../../core/http/schemas.js';
import type { ComplianceEventRow } from '../../../projections/compliance/index.js';

/**
 * The rows of a compliance export, one per processing event, as JSON Lines and as CSV. The same
 * fields in the same order in both; the CSV's header names them.
 */
export const EXPORT_COLUMNS = [
  'event_id',
  'stream',
  'revision',
  'type',
  'processing_region',
  'actor_type',
  'actor_id',
  'correlation_id',
  'causation_id',
  'occurred_at',
  'recorded_at',
  'position',
  'hash',
] as const;

export type ExportRecord = { [K in (typeof EXPORT_COLUMNS)[number]]: K extends 'revision' ? number : string };

export function exportRecord(row: ComplianceEventRow): ExportRecord {
  return {
    event_id: row.event_id,
    stream: row.stream,
    revision: row.revision,
    type: row.type,
    processing_region: row.processing_region,
    actor_type: row.actor_type,
    actor_id: row.actor_id,
    correlation_id: row.correlation_id,
    causation_id: row.causation_id,
    occurred_at: isoDate(row.occurred_at)!,
    recorded_at: isoDate(row.recorded_at)!,
    position: row.position,
    hash: row.hash,
  };
}

/** One JSON Lines line (with its newline). */
export const jsonLine = (record: ExportRecord): string => `${JSON.stringify(record)}\n`;

/**
 * A CSV cell as RFC 4180 writes it (quoted when it holds a quote, comma or line break; quotes
 * doubled) and safe to open in a spreadsheet: a value starting with = + - @, a tab or a carriage
 * return would be read as a formula (CSV injection, OWASP), so it gets a leading apostrophe. The
 * values come from the caller's own requests (a correlation id is the caller's X-Request-Id).
 */
export function csvCell(value: string | number): string {
  let text = String(value);
  if (/^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** A CSV record with its CRLF (RFC 4180). */
export const csvLine = (cells: readonly (string | number)[]): string => `${cells.map(csvCell).join(',')}\r\n`;

export const CSV_HEADER = csvLine(EXPORT_COLUMNS);

export const csvRecord = (record: ExportRecord): string => csvLine(EXPORT_COLUMNS.map((column) => record[column]));
