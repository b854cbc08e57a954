import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import { Router } from 'express';
import { z } from 'zod';
import { accountEvents, emailClaimEvents } from '../accounts/events.js';
import { apiKeyEvents } from '../apikeys/events.js';
import { redactedData, type EventDefinition } from '../../core/events.js';
import { NotFoundError } from '../../core/errors.js';
import type { ApiDeps } from '../../core/deps.js';
import { defineRoute } from '../../adapters/http/route.js';
import { isoDate } from '../../core/schemas.js';

/** Every event catalogue, so the audit view can redact secret fields of any event. */
export const eventCatalogues: Record<string, EventDefinition>[] = [accountEvents, emailClaimEvents, apiKeyEvents];

const auditEvent = z
  .object({
    id: z.uuid(),
    stream: z.string(),
    revision: z.number().int(),
    position: z.string().describe('Global position (a decimal string: it may exceed 2^53).'),
    type: z.string(),
    version: z.number().int(),
    data: z.record(z.string(), z.unknown()),
    metadata: z.object({
      account_id: z.string().nullable(),
      actor: z.object({ type: z.string(), id: z.string() }),
      causation_id: z.string(),
      correlation_id: z.string(),
      processing_region: z.string(),
      occurred_at: z.string(),
    }),
    recorded_at: z.string(),
  })
  .openapi('AuditEvent');

const streamName = z.string().regex(/^[a-z_]+-[A-Za-z0-9-]{1,80}$/, 'A stream name such as account-<uuid> or apikey-<uuid>.');

export function auditRoutes(deps: ApiDeps, registry: OpenAPIRegistry): Router {
  const router = Router();

  defineRoute(router, registry, deps, {
    method: 'get',
    path: '/v1/audit/streams',
    tag: 'audit',
    summary: "List the caller's event streams, most recently changed first",
    auth: 'any',
    query: z.strictObject({
      offset: z.coerce.number().int().min(0).default(0),
      size: z.coerce.number().int().min(1).max(100).default(20),
    }),
    responses: {
      200: {
        description: 'Streams',
        schema: z.object({
          items: z.array(z.object({ stream: z.string(), event_count: z.number().int(), first_recorded_at: z.string(), last_recorded_at: z.string() })),
          total: z.number().int(),
          offset: z.number().int(),
          size: z.number().int(),
        }),
      },
    },
    async handler({ query, principal }) {
      const base = deps.knex('stream_owners').where({ account_id: principal.accountId });
      const counted = await base.clone().count<{ count: string }[]>('* as count');
      const count = counted[0]?.count ?? 0;
      const rows = await base.clone().orderBy([{ column: 'last_recorded_at', order: 'desc' }, { column: 'stream' }]).offset(query.offset).limit(query.size);
      return {
        status: 200,
        body: {
          items: rows.map((r) => ({ stream: r.stream, event_count: r.event_count, first_recorded_at: isoDate(r.first_recorded_at), last_recorded_at: isoDate(r.last_recorded_at) })),
          total: Number(count),
          offset: query.offset,
          size: rows.length,
        },
      };
    },
  });

  defineRoute(router, registry, deps, {
    method: 'get',
    path: '/v1/audit/streams/{stream}',
    tag: 'audit',
    summary: 'The ordered events of one of your streams, with actor, causation, correlation, region and timestamps',
    description: 'Secret fields (password and key hashes) are redacted. Streams of other accounts answer 404 so their existence stays hidden.',
    auth: 'any',
    params: z.strictObject({ stream: streamName }),
    query: z.strictObject({
      from_revision: z.coerce.number().int().min(0).default(0),
      limit: z.coerce.number().int().min(1).max(1000).default(500),
    }),
    responses: {
      200: {
        description: 'Events in stream order',
        schema: z.object({ stream: z.string(), account_id: z.string(), events: z.array(auditEvent), total: z.number().int(), from_revision: z.number().int() }),
      },
      404: { description: 'No such stream in your account' },
    },
    async handler({ params, query, principal }) {
      const owner = await deps.knex('stream_owners').where({ stream: params.stream }).first();
      if (!owner || owner.account_id !== principal.accountId) {
        throw new NotFoundError('STREAM_NOT_FOUND', 'Stream not found.', { suggestion: 'List your streams with GET /v1/audit/streams.' });
      }
      const events = await deps.store.readStream(params.stream);
      const page = events.filter((e) => e.revision >= query.from_revision).slice(0, query.limit);
      return {
        status: 200,
        body: {
          stream: params.stream,
          account_id: owner.account_id,
          total: events.length,
          from_revision: query.from_revision,
          events: page.map((e) => ({ ...e, position: e.position.toString(), data: redactedData(eventCatalogues, e) })),
        },
      };
    },
  });

  return router;
}
