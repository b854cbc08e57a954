import crypto from 'node:crypto';
import { Readable } from 'node:stream';
import { EU_REGION } from '../../core/config.js';
import type { AppDeps } from '../../core/module/deps.js';
import { AccessDeniedError, ValidationError } from '../../core/errors.js';
import type { Principal } from '../../core/principal.js';
import { isoDate } from '../../core/http/schemas.js';
import { CSV_HEADER, csvRecord, EXPORT_COLUMNS, exportRecord, jsonLine, type ExportRecord } from './export-format.js';
import { chainHeads, countsBy, edgeOfPeriod, pageOfPeriod, type ComplianceEventRow, type Cursor, type Period } from '../../../projections/compliance/index.js';
import { signEs256, type Es256Signature } from '../../provenance/es256.js';

/** The longest period one export covers (a year, leap day included); longer ones are exported in parts. */
export const MAX_PERIOD_DAYS = 366;
const DAY_MS = 24 * 60 * 60_000;
/** The period when none is given: the last 30 days (as the share analytics default to). */
const DEFAULT_PERIOD_DAYS = 30;
/** A `to` this far past the service's clock is taken for the caller's clock running ahead, and read as now. */
const CLOCK_SKEW_MS = 60_000;
/** Rows read per query while streaming: memory stays bounded whatever the period holds. */
const PAGE_SIZE = 1000;

export type ExportFormat = 'jsonl' | 'csv';

/** RFC 3339 instants as the caller gave them; either may be left out (DEFAULT_PERIOD_DAYS up to now). */
export interface PeriodInput {
  from?: string | undefined;
  to?: string | undefined;
}

/** Compliance evidence is the account's, for its admins: a member (or a member's key) is refused. */
function assertAdmin(principal: Principal): void {
  if (principal.role !== 'admin') {
    throw new AccessDeniedError('Only an admin of the account can export its compliance evidence.', {
      suggestion: 'Ask an admin of your account to export it, or to make you an admin.',
    });
  }
}

/**
 * The period asked for, checked: `to` after `from`, at most MAX_PERIOD_DAYS long, not in the
 * future (a `to` within CLOCK_SKEW_MS of now is read as now, so the period holds only events
 * recorded already and the rows and the summary of one period stay the same on every call).
 */
export function checkPeriod(input: PeriodInput, now: Date): Period {
  let to = input.to ? new Date(input.to) : now;
  const from = input.from ? new Date(input.from) : new Date(to.getTime() - DEFAULT_PERIOD_DAYS * DAY_MS);
  const suggestion = `Give from and to as RFC 3339 instants, to after from, at most ${MAX_PERIOD_DAYS} days apart, to not later than now.`;
  if (to.getTime() <= from.getTime()) throw new ValidationError('The period ends before it starts: `to` must be after `from`.', { suggestion });
  if (to.getTime() - from.getTime() > MAX_PERIOD_DAYS * DAY_MS) {
    throw new ValidationError(`The period is longer than ${MAX_PERIOD_DAYS} days.`, { suggestion: `Export it in parts of at most ${MAX_PERIOD_DAYS} days.` });
  }
  if (to.getTime() > now.getTime() + CLOCK_SKEW_MS) throw new ValidationError('The period ends in the future: nothing is recorded there yet.', { suggestion });
  if (to.getTime() > now.getTime()) to = now;
  return { from, to };
}

/** The read models include every event appended before the export began (the period's rows are then complete). */
async function caughtUp(deps: AppDeps): Promise<void> {
  await deps.readModels.waitFor(await deps.store.headPosition(), deps.config.READ_MODEL_WAIT_MS);
}

/** The period's events of the account, page by page: never more than a page in memory. */
async function* periodRecords(deps: AppDeps, accountId: string, period: Period): AsyncGenerator<ExportRecord> {
  let after: Cursor | null = null;
  for (;;) {
    const rows: ComplianceEventRow[] = await pageOfPeriod(deps.knex, accountId, period, after, PAGE_SIZE);
    for (const row of rows) yield exportRecord(row);
    if (rows.length < PAGE_SIZE) return;
    const last = rows.at(-1)!;
    after = { occurred_at: isoDate(last.occurred_at)!, position: last.position };
  }
}

async function* lines(records: AsyncIterable<ExportRecord>, format: ExportFormat): AsyncGenerator<string> {
  if (format === 'csv') yield CSV_HEADER;
  for await (const record of records) yield format === 'csv' ? csvRecord(record) : jsonLine(record);
}

/**
 * The caller's account's processing events of a period, as JSON Lines or CSV, streamed: the first
 * bytes leave at once and rows follow a page at a time, so a year of events neither times out nor
 * fills memory. The signed summary (`complianceSummary`) gives each file's SHA-256 and row count:
 * a download cut short is told from a complete one.
 */
export async function exportEvents(deps: AppDeps, principal: Principal, input: PeriodInput, format: ExportFormat): Promise<{ period: Period; body: Readable }> {
  assertAdmin(principal);
  const period = checkPeriod(input, deps.now());
  await caughtUp(deps);
  return { period, body: Readable.from(lines(periodRecords(deps, principal.accountId, period), format)) };
}

interface EventSummary {
  event_id: string;
  stream: string;
  revision: number;
  type: string;
  processing_region: string;
  recorded_at: string;
  hash: string;
}

const eventSummary = (row: ComplianceEventRow | undefined): EventSummary | null =>
  row
    ? { event_id: row.event_id, stream: row.stream, revision: row.revision, type: row.type, processing_region: row.processing_region, recorded_at: isoDate(row.recorded_at)!, hash: row.hash }
    : null;

export interface ComplianceSummary {
  format: 'photoverify-compliance-summary/1';
  service: string;
  account_id: string;
  period: { from: string; to: string };
  generated_at: string;
  event_count: number;
  counts_by_region: Record<string, number>;
  counts_by_type: Record<string, number>;
  first_event: EventSummary | null;
  last_event: EventSummary | null;
  chain_heads: { stream: string; revision: number; hash: string; recorded_at: string }[];
  processing: { configured_region: string; eu_only: true; eu_region_rule: string; enforcement: string; events_outside_eu: number };
  files: { columns: readonly string[]; 'events.jsonl': { sha256: string; rows: number }; 'events.csv': { sha256: string; rows: number } };
}

/**
 * The signed summary of a period: counts per processing region and per event type, the first and
 * last event, each stream's chain head at the period's end, the configured region and the rule
 * that keeps processing in the EU, and the SHA-256 of both files (one more pass over the rows,
 * a page at a time), signed ES256 with the service's signing key.
 */
export async function complianceSummary(deps: AppDeps, principal: Principal, input: PeriodInput): Promise<{ summary: ComplianceSummary; signature: Es256Signature }> {
  assertAdmin(principal);
  const period = checkPeriod(input, deps.now());
  await caughtUp(deps);
  const accountId = principal.accountId;
  const [byRegion, byType, first, last, heads] = await Promise.all([
    countsBy(deps.knex, accountId, period, 'processing_region'),
    countsBy(deps.knex, accountId, period, 'type'),
    edgeOfPeriod(deps.knex, accountId, period, 'first'),
    edgeOfPeriod(deps.knex, accountId, period, 'last'),
    chainHeads(deps.knex, accountId, period),
  ]);
  const jsonl = crypto.createHash('sha256');
  const csv = crypto.createHash('sha256').update(CSV_HEADER);
  let rows = 0;
  for await (const record of periodRecords(deps, accountId, period)) {
    jsonl.update(jsonLine(record));
    csv.update(csvRecord(record));
    rows++;
  }
  const summary: ComplianceSummary = {
    format: 'photoverify-compliance-summary/1',
    service: deps.config.SERVICE_NAME,
    account_id: accountId,
    period: { from: period.from.toISOString(), to: period.to.toISOString() },
    generated_at: deps.now().toISOString(),
    event_count: rows,
    counts_by_region: byRegion,
    counts_by_type: byType,
    first_event: eventSummary(first),
    last_event: eventSummary(last),
    chain_heads: heads.map((h) => ({ stream: h.stream, revision: h.revision, hash: h.hash, recorded_at: isoDate(h.recorded_at)! })),
    processing: {
      configured_region: deps.config.PROCESSING_REGION,
      eu_only: true,
      eu_region_rule: EU_REGION.source,
      enforcement: 'PROCESSING_REGION must be an EU region (eu_region_rule): the service refuses to start with any other, and records it on every event.',
      events_outside_eu: Object.entries(byRegion).reduce((n, [region, count]) => (EU_REGION.test(region) ? n : n + count), 0),
    },
    files: { columns: EXPORT_COLUMNS, 'events.jsonl': { sha256: jsonl.digest('hex'), rows }, 'events.csv': { sha256: csv.digest('hex'), rows } },
  };
  return { summary, signature: signEs256(summary, await deps.signer(), 'Compliance summaries') };
}
