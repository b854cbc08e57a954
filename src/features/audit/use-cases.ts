import type { AppDeps } from '../../core/module/deps.js';
import { NotFoundError } from '../../core/errors.js';
import type { EventMetadata, StoredEvent } from '../../core/es/event-store.js';
import { redactedData, type EventDefinition } from '../../core/es/events.js';
import { canonicalJson } from '../../core/audit/canonical-json.js';
import { fieldDigest } from '../../core/audit/hash-chain.js';
import type { Principal } from '../../core/principal.js';
import { isoDate } from '../../core/http/schemas.js';
import { publicMailEventData } from '../mail/index.js';
import { findVisibleStream, pageVisibleStreams } from '../../../projections/audit/index.js';

export interface StreamSummary {
  stream: string;
  event_count: number;
  first_recorded_at: string | null;
  last_recorded_at: string | null;
}

/** The event streams the caller may see (each stream's owning feature's read rule), most recently changed first. */
export async function listStreams(
  deps: AppDeps,
  principal: Principal,
  page: { offset: number; size: number },
): Promise<{ items: StreamSummary[]; total: number; offset: number; size: number }> {
  const { rows, total } = await pageVisibleStreams(deps.knex, deps.streamReadRules, principal, page);
  return {
    items: rows.map((r) => ({ stream: r.stream, event_count: r.event_count, first_recorded_at: isoDate(r.first_recorded_at), last_recorded_at: isoDate(r.last_recorded_at) })),
    total,
    offset: page.offset,
    size: rows.length,
  };
}

export interface AuditEvent {
  id: string;
  stream: string;
  revision: number;
  /** A decimal string: it may exceed 2^53. */
  position: string;
  type: string;
  version: number;
  data: Record<string, unknown>;
  metadata: EventMetadata;
  recorded_at: string;
  /** The hash chain (src/core/audit/hash-chain.ts, docs/audit.md), as stored at append time. */
  content_hash: string;
  hash: string;
  previous_hash: string | null;
  /** `fieldDigest` of the stored value of every field `data` shows redacted or rewritten, so the content hash can be recomputed from this answer alone. */
  redacted_fields: Record<string, string>;
}

/**
 * The ordered events of one stream the caller may see, secret fields redacted and server details
 * left out of mail outcomes. Whether it may is the owning feature's read rule (a member sees their
 * own API keys' streams, not the admin's; nobody sees another account's): a stream it may not see
 * is STREAM_NOT_FOUND, like an unknown one, so its existence stays hidden.
 */
export async function readStreamHistory(
  deps: AppDeps,
  principal: Principal,
  input: { stream: string; from_revision: number; limit: number },
): Promise<{ stream: string; account_id: string; total: number; from_revision: number; events: AuditEvent[] }> {
  const owner = await findVisibleStream(deps.knex, deps.streamReadRules, principal, input.stream);
  if (!owner?.account_id) {
    throw new NotFoundError('STREAM_NOT_FOUND', 'Stream not found.', { suggestion: 'List your streams with GET /v1/audit/streams.' });
  }
  const events = await deps.store.readStream(input.stream);
  const page = events.filter((e) => e.revision >= input.from_revision).slice(0, input.limit);
  return {
    stream: input.stream,
    account_id: owner.account_id,
    total: events.length,
    from_revision: input.from_revision,
    events: page.map((e) => auditEvent(deps.eventCatalogues, e)),
  };
}

/** Every event of a stream as the audit history shows it. No ownership check: the caller makes it. */
export async function auditEventsOfStream(deps: AppDeps, stream: string): Promise<AuditEvent[]> {
  return (await deps.store.readStream(stream)).map((e) => auditEvent(deps.eventCatalogues, e));
}

/**
 * One event as the history shows it: secrets redacted, mail details made public (mail events
 * recorded before D-089 may name server paths and hosts: shown as new ones are recorded), and the
 * digest of every field so changed, so its content hash can be recomputed (docs/audit.md).
 */
function auditEvent(catalogues: readonly Record<string, EventDefinition>[], stored: StoredEvent): AuditEvent {
  const data = publicMailEventData(stored.type, redactedData(catalogues, stored));
  const redacted: Record<string, string> = {};
  for (const [field, value] of Object.entries(stored.data)) {
    if (value !== undefined && (!Object.hasOwn(data, field) || canonicalJson(data[field]) !== canonicalJson(value))) redacted[field] = fieldDigest(value);
  }
  return { ...stored, position: stored.position.toString(), data, redacted_fields: redacted };
}
