import { z } from 'zod';
import { route, type RouteSpec } from '../../core/http/route-spec.js';
import { queryInteger } from '../../core/http/query-integer.js';
import type { AppDeps } from '../../core/module/deps.js';
import { listStreams, readStreamHistory } from './use-cases.js';

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
    content_hash: z.string().describe('contentHash of the event: SHA-256 (hex) of the canonical JSON of its id, type, version, data commitment and metadata (docs/audit.md).'),
    hash: z.string().describe("The event's link in its stream's hash chain: SHA-256 (hex) of previous_hash, stream, revision and content_hash (docs/audit.md)."),
    previous_hash: z.string().nullable().describe("The hash of the stream's previous event; null at revision 0."),
    redacted_fields: z
      .record(z.string(), z.string())
      .describe('For every field of data shown redacted or rewritten: the SHA-256 (hex) of the canonical JSON of its stored value, so content_hash can be recomputed from this answer alone. Empty when none.'),
  })
  .openapi('AuditEvent');

const streamName = z.string().regex(/^[a-z_]+-[A-Za-z0-9-]{1,80}$/, 'A stream name such as account-<uuid> or apikey-<uuid>.');

export function auditRoutes(deps: AppDeps): RouteSpec[] {
  return [
    route({
      method: 'get',
      path: '/v1/audit/streams',
      tag: 'audit',
      summary: 'List the event streams the caller may read, most recently changed first',
      description:
        "The streams of the caller's account that each stream's owning feature lets it read (a member the history of their own API keys, not of other users' keys; docs/audit.md). total counts only those.",
      auth: 'any',
      query: z.strictObject({
        offset: queryInteger({ min: 0, default: 0 }),
        size: queryInteger({ min: 1, max: 100, default: 20 }),
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
      handler: async ({ query, principal }) => ({ status: 200, body: await listStreams(deps, principal, query) }),
    }),
    route({
      method: 'get',
      path: '/v1/audit/streams/{stream}',
      tag: 'audit',
      summary: 'The ordered events of one stream you may read, with actor, causation, correlation, region and timestamps',
      description:
        "Secret fields (password and key hashes, tokens) are redacted and mail server details made public; each such field's digest is in redacted_fields. Every event carries its content hash, its link hash and the previous event's, so the stream's hash chain can be checked from this answer alone (docs/audit.md). Who may read a stream is its owning feature's read rule (a member reads their own API keys' apikey-<id> streams, an admin every key's; nobody another account's; docs/audit.md): a stream the caller may not read answers 404 as an unknown one, so its existence stays hidden.",
      auth: 'any',
      params: z.strictObject({ stream: streamName }),
      query: z.strictObject({
        from_revision: queryInteger({ min: 0, default: 0 }),
        limit: queryInteger({ min: 1, max: 1000, default: 500 }),
      }),
      responses: {
        200: {
          description: 'Events in stream order',
          schema: z.object({ stream: z.string(), account_id: z.string(), events: z.array(auditEvent), total: z.number().int(), from_revision: z.number().int() }),
        },
        404: { description: 'No such stream, or not one you may read' },
      },
      handler: async ({ params, query, principal }) => ({ status: 200, body: await readStreamHistory(deps, principal, { stream: params.stream, ...query }) }),
    }),
  ];
}
