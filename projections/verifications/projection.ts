import crypto from 'node:crypto';
import { assertNever, parseEvent } from '../../src/core/es/events.js';
import { verificationEvents } from '../../src/features/verifications/events.js';
import type { Knex } from 'knex';
import { type Projector, unapplied } from '../../src/core/es/projector.js';
import { streamInstance } from '../../src/core/es/streams.js';
import { verificationChange, type VerificationState } from './replay.js';

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
  async apply(trx, stored) {
    const event = parseEvent(verificationEvents, stored);
    if (!event) return;
    // What the event sets comes from the one fold the auditor's replay runs too (replay.ts).
    const change = verificationChange({ type: event.type, data: event.data, metadata: stored.metadata });
    if (!change) return;
    const id = streamInstance('verification', stored.stream);
    const position = stored.position.toString();
    const row = () => unapplied(trx, 'verifications', { id }, position);
    switch (change.kind) {
      case 'queued': {
        const { anonymous, ...state } = change.state;
        const inserted = await trx('verifications')
          .insert({ id, ...columnsOf(state), anonymous_origin: anonymous ? state.account_id : null, last_position: position })
          .onConflict('id')
          .ignore()
          .returning('id');
        if (inserted.length) await countIn(trx, state.account_id, 1);
        return;
      }
      case 'update':
        await row().update({ ...columnsOf(change.columns), last_position: position });
        return;
      case 'result': {
        const r = change.result;
        const updated = await row().update({ ...columnsOf(change.columns), last_position: position });
        if (updated === 0) return;
        await trx('verification_results').insert({
          id: r.id,
          verification_id: id,
          // The analysis algorithm's id: stable per analysis name, so clients can group results.
          verificator_id: analysisId(r.analysis),
          analysis: r.analysis,
          result: r.result,
          confidence_score: r.confidence_score,
          details: json(r.details),
          created_at: r.created_at,
          updated_at: r.created_at,
        });
        return;
      }
      case 'rendition': {
        const { kind, ...rendition } = change.rendition;
        await row().update({ renditions: trx.raw(`renditions || ?::jsonb`, [json({ [kind]: rendition })]), ...columnsOf(change.columns), last_position: position });
        return;
      }
      case 'claimed': {
        const before = await row().first('account_id');
        if (!before) return;
        await row().update({ ...columnsOf(change.columns), last_position: position });
        await countIn(trx, before.account_id, -1);
        await countIn(trx, change.columns.account_id, 1);
        return;
      }
      case 'closed':
        // The files are gone: no rendition is left to link to.
        await row().update({ ...columnsOf(change.columns), renditions: '{}', last_position: position });
        return;
      case 'deleted': {
        const deleted = await trx('verifications').where({ id }).delete().returning('account_id');
        for (const { account_id } of deleted) await countIn(trx, account_id, -1);
        return;
      }
      default:
        assertNever(change);
    }
  },
};

/** The fold's values as the table stores them: JSON columns as JSON text. */
function columnsOf(values: Partial<VerificationState>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [column, value] of Object.entries(values)) out[column] = JSON_COLUMNS.has(column) && value !== null ? json(value) : value;
  return out;
}

const JSON_COLUMNS = new Set(['image', 'raw', 'billing', 'capture', 'evidence_report', 'raw_metadata', 'image_metadata', 'rendition_info', 'rendition_corrected_info']);

/** How many verifications an account has: the unfiltered list's total, without counting rows (D-047). */
async function countIn(trx: Knex.Transaction, accountId: string, delta: number): Promise<void> {
  await trx.raw(
    `insert into verification_counts (account_id, total) values (?, ?)
     on conflict (account_id) do update set total = verification_counts.total + excluded.total`,
    [accountId, delta],
  );
}

/**
 * The per-account totals and the search indexes. Both are created where missing, without a
 * version change: the totals are filled from the rows already projected, so an existing read
 * model is not rebuilt from the whole log. The search runs without its trigram index where the
 * database refuses the extension (a role without the right to create it): slower, same answers.
 */
async function migrateSearchAndCounts(knex: Knex): Promise<void> {
  const { rows } = await knex.raw<{ rows: { exists: boolean }[] }>("select to_regclass('verification_counts') is not null as exists");
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
    await knex.raw('create extension if not exists pg_trgm');
    await knex.raw('create index if not exists verifications_name_trgm on verifications using gin (name gin_trgm_ops)');
  } catch {
    // Without pg_trgm the name search scans the account's rows: correct, slower.
  }
}

function analysisId(name: string): string {
  const hash = crypto.createHash('sha256').update(`photoverify-analysis:${name}`).digest('hex');
  return `${hash.slice(0, 8)}-${hash.slice(8, 12)}-5${hash.slice(13, 16)}-8${hash.slice(17, 20)}-${hash.slice(20, 32)}`;
}
