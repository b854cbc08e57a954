import type { AppDeps } from '../../core/deps.js';
import { NotFoundError } from '../../core/errors.js';
import type { EventActor } from '../../core/event-store.js';
import { redactedData } from '../../core/events.js';
import type { Principal } from '../../core/principal.js';
import { isoDate } from '../../core/schemas.js';
import { publicMailEventData } from '../mail/index.js';
import { findStreamOwner, pageStreamsOfAccount } from './queries.js';

export interface StreamSummary {
  stream: string;
  event_count: number;
  first_recorded_at: string | null;
  last_recorded_at: string | null;
}

/** The caller's event streams, most recently changed first. */
export async function listStreams(
  deps: AppDeps,
  principal: Principal,
  page: { offset: number; size: number },
): Promise<{ items: StreamSummary[]; total: number; offset: number; size: number }> {
  const { rows, total } = await pageStreamsOfAccount(deps.knex, principal.accountId, page);
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
  metadata: {
    account_id: string | null;
    actor: EventActor;
    causation_id: string;
    correlation_id: string;
    processing_region: string;
    occurred_at: string;
  };
  recorded_at: string;
}

/**
 * The ordered events of one of the caller's streams, secret fields redacted and server details
 * left out of mail outcomes. Streams of other
 * accounts are STREAM_NOT_FOUND, like unknown ones, so their existence stays hidden.
 */
export async function readStreamHistory(
  deps: AppDeps,
  principal: Principal,
  input: { stream: string; from_revision: number; limit: number },
): Promise<{ stream: string; account_id: string; total: number; from_revision: number; events: AuditEvent[] }> {
  const owner = await findStreamOwner(deps.knex, input.stream);
  if (!owner || owner.account_id !== principal.accountId) {
    throw new NotFoundError('STREAM_NOT_FOUND', 'Stream not found.', { suggestion: 'List your streams with GET /v1/audit/streams.' });
  }
  const events = await deps.store.readStream(input.stream);
  const page = events.filter((e) => e.revision >= input.from_revision).slice(0, input.limit);
  const all = deps.eventCatalogues;
  return {
    stream: input.stream,
    account_id: owner.account_id,
    total: events.length,
    from_revision: input.from_revision,
    // Mail events recorded before D-089 may name server paths and hosts: shown as new ones are recorded.
    events: page.map((e) => ({ ...e, position: e.position.toString(), data: publicMailEventData(e.type, redactedData(all, e)) })),
  };
}
