import crypto from 'node:crypto';
import { assertNever, parseEvent } from '../../src/core/es/events.js';
import { verificationEvents } from '../../src/features/verifications/events.js';
import type { Knex } from 'knex';
import type { StoredEvent } from '../../src/core/es/event-store.js';
import { PageRows } from '../../src/core/es/page-rows.js';
import type { Projector } from '../../src/core/es/projector.js';
import { streamInstance } from '../../src/core/es/streams.js';
import { type ReplayedResult, verificationChange, type VerificationState } from './replay.js';

const json = (value: unknown) => JSON.stringify(value);

/** verifications and their per-analysis results. Deletion removes the rows (it is permanent). */
export const verificationsProjector: Projector = {
  name: 'verifications',
  version: 3,
  tables: ['verification_results', 'verification_counts', 'verifications'],
  async migrate(knex) {
    await knex.raw(`
      create table if not exists verifications (
        id uuid primary key,
        account_id uuid not null,
        status text not null,
        failure_reason text,
        verification_mode text not null,
        name text not null,
        short_code text not null,
        pipeline_build text not null,
        image jsonb not null,
        raw jsonb,
        billing jsonb not null,
        capture jsonb,
        anonymous_origin uuid,
        result boolean,
        result_confidence double precision not null default 0,
        assurance_level text,
        assurance_reason text,
        verdict text,
        verdict_reason text,
        evidence_report jsonb,
        capture_verified boolean,
        raw_metadata jsonb not null default '{}',
        image_metadata jsonb not null default '{}',
        rendition_info jsonb not null default '{}',
        rendition_corrected_info jsonb not null default '{}',
        renditions jsonb not null default '{}',
        created_at timestamptz not null,
        updated_at timestamptz not null,
        last_position numeric(20, 0) not null
      )`);
    await knex.raw('create index if not exists verifications_account_created on verifications (account_id, created_at desc)');
    await knex.raw('create index if not exists verifications_anonymous_origin on verifications (anonymous_origin) where anonymous_origin is not null');
    await knex.raw(`
      create table if not exists verification_results (
        id uuid primary key,
        verification_id uuid not null references verifications(id) on delete cascade,
        verificator_id uuid not null,
        analysis text not null,
        result boolean,
        confidence_score double precision not null,
        details jsonb not null,
        created_at timestamptz not null,
        updated_at timestamptz not null
      )`);
    await knex.raw('create index if not exists verification_results_verification on verification_results (verification_id)');
    await migrateSearchAndCounts(knex);
    // Added without a version change: no event before these columns sets them (issue 25's retention events).
    await knex.raw('alter table verifications add column if not exists raw_discarded_at timestamptz');
    await knex.raw('alter table verifications add column if not exists files_expired_at timestamptz');
  },
  apply: (trx, event) => applyPage(trx, [event]),
  applyAll: applyPage,
};

type Row = Record<string, unknown> & { account_id: string; renditions: Record<string, unknown> };

/**
 * A page of events at once (issue 38): the rows of the page's verifications read in one
 * statement, folded in memory event by event, then written in one statement per table (rows,
 * results, per-account totals: how many verifications an account has, the unfiltered list's
 * total without counting rows, D-047). An event a row already reflects changes nothing.
 */
async function applyPage(trx: Knex.Transaction, events: readonly StoredEvent[]): Promise<void> {
  const changes: { id: string; position: string; change: NonNullable<ReturnType<typeof verificationChange>> }[] = [];
  for (const stored of events) {
    const event = parseEvent(verificationEvents, stored);
    const change = event && verificationChange({ type: event.type, data: event.data, metadata: stored.metadata });
    if (change) changes.push({ id: streamInstance('verification', stored.stream), position: stored.position.toString(), change });
  }
  if (changes.length === 0) return;
  const rows = await PageRows.load<Row>(trx, 'verifications', 'id', changes.map((c) => c.id), storedRow);
  // Results by verification: a verification deleted later in the page takes its results with it.
  const results = new Map<string, Record<string, unknown>[]>();
  const totals = new Map<string, number>();
  const count = (account: string, delta: number) => totals.set(account, (totals.get(account) ?? 0) + delta);
  for (const { id, position, change } of changes) {
    if (change.kind === 'queued') {
      if (rows.get(id)) continue;
      const { anonymous, ...state } = change.state;
      rows.put(id, { id, ...state, anonymous_origin: anonymous ? state.account_id : null, renditions: {}, last_position: position });
      count(state.account_id, 1);
      continue;
    }
    // Not there (deleted, or never queued), or reflecting this event already (a replay): unchanged.
    const row = rows.get(id);
    if (!row || BigInt(row.last_position as string) >= BigInt(position)) continue;
    switch (change.kind) {
      case 'update':
        rows.put(id, { ...row, ...change.columns, last_position: position });
        break;
      case 'result':
        rows.put(id, { ...row, ...change.columns, last_position: position });
        results.set(id, [...(results.get(id) ?? []), resultRow(id, change.result)]);
        break;
      case 'rendition': {
        const { kind, ...rendition } = change.rendition;
        rows.put(id, { ...row, renditions: { ...row.renditions, [kind]: rendition }, ...change.columns, last_position: position });
        break;
      }
      case 'claimed':
        rows.put(id, { ...row, ...change.columns, last_position: position });
        count(row.account_id, -1);
        count(change.columns.account_id, 1);
        break;
      case 'closed':
        // The files are gone: no rendition is left to link to.
        rows.put(id, { ...row, ...change.columns, renditions: {}, last_position: position });
        break;
      case 'deleted':
        rows.remove(id);
        results.delete(id);
        count(row.account_id, -1);
        break;
      default:
        assertNever(change);
    }
  }
  await rows.write(trx);
  const recorded = [...results.values()].flat();
  for (let i = 0; i < recorded.length; i += 500) await trx('verification_results').insert(recorded.slice(i, i + 500));
  if (totals.size) {
    await trx.raw(
      `insert into verification_counts (account_id, total) values ${[...totals].map(() => '(?::uuid, ?::integer)').join(', ')}
       on conflict (account_id) do update set total = verification_counts.total + excluded.total`,
      [...totals].flat(),
    );
  }
}

/** A row as the table stores it: JSON columns (the renditions too) as JSON text. */
const storedRow = (row: Row) => ({ ...columnsOf(row), renditions: json(row.renditions) });

function resultRow(verificationId: string, r: ReplayedResult) {
  return {
    id: r.id,
    verification_id: verificationId,
    // The analysis algorithm's id: stable per analysis name, so clients can group results.
    verificator_id: analysisId(r.analysis),
    analysis: r.analysis,
    result: r.result,
    confidence_score: r.confidence_score,
    details: json(r.details),
    created_at: r.created_at,
    updated_at: r.created_at,
  };
}

/** The fold's values as the table stores them: JSON columns as JSON text. */
function columnsOf(values: Partial<VerificationState>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [column, value] of Object.entries(values)) out[column] = JSON_COLUMNS.has(column) && value !== null ? json(value) : value;
  return out;
}

const JSON_COLUMNS = new Set(['image', 'raw', 'billing', 'capture', 'evidence_report', 'raw_metadata', 'image_metadata', 'rendition_info', 'rendition_corrected_info']);

/**
 * The per-account totals and the search indexes. Both are created where missing, without a
 * version change: the totals are filled from the rows already projected, so an existing read
 * model is not rebuilt from the whole log. The search runs without its trigram index where the
 * database refuses the extension (a role without the right to create it): slower, same answers.
 */
async function migrateSearchAndCounts(knex: Knex): Promise<void> {
  const { rows } = await knex.raw<{ rows: { exists: boolean }[] }>(
    // In the schema the tables are made in (a rebuild makes them in its shadow schema first).
    "select to_regclass(current_schema() || '.verification_counts') is not null as exists",
  );
  if (!rows[0]?.exists) {
    await knex.transaction(async (trx) => {
      await trx.raw('create table if not exists verification_counts (account_id uuid primary key, total integer not null)');
      await trx.raw('insert into verification_counts (account_id, total) select account_id, count(*) from verifications group by account_id on conflict do nothing');
    });
  }
  // Exact lookups the search also matches: a file's SHA-256.
  await knex.raw("create index if not exists verifications_image_sha256 on verifications ((image->>'sha256'))");
  await knex.raw("create index if not exists verifications_raw_sha256 on verifications ((raw->>'sha256')) where raw is not null");
  try {
    // Its own (sub)transaction: a refusal inside a rebuild's transaction must not abort the rest.
    await knex.transaction(async (trx) => {
      await trx.raw('create extension if not exists pg_trgm');
      await trx.raw('create index if not exists verifications_name_trgm on verifications using gin (name gin_trgm_ops)');
    });
  } catch {
    // Without pg_trgm the name search scans the account's rows: correct, slower.
  }
}

/** Each analysis's id, hashed once per name: the names are the event schema's enum, and a rebuild asks once per result. */
const analysisIds = new Map<string, string>();

function analysisId(name: string): string {
  let id = analysisIds.get(name);
  if (id === undefined) {
    const hash = crypto.createHash('sha256').update(`photoverify-analysis:${name}`).digest('hex');
    id = `${hash.slice(0, 8)}-${hash.slice(8, 12)}-5${hash.slice(13, 16)}-8${hash.slice(17, 20)}-${hash.slice(20, 32)}`;
    analysisIds.set(name, id);
  }
  return id;
}
