import { z } from 'zod';
import type { AppDeps } from '../../core/module/deps.js';
import { route, type RouteSpec } from '../../core/http/route-spec.js';
import { complianceSummary, exportEvents, MAX_PERIOD_DAYS } from './use-cases.js';

const instant = (what: string) => z.iso.datetime({ offset: true }).describe(`${what}: an RFC 3339 instant with its offset (2026-01-01T00:00:00Z).`);
const period = {
  from: instant('Start of the period, included (events that occurred at or after it, by their hashed `occurred_at`); default: 30 days before `to`').optional(),
  to: instant('End of the period, excluded (events that occurred before it); not later than now; default: now').optional(),
};
const periodRules = `The period is \`[from, to)\` in each event's \`occurred_at\`, the time its hash covers (default: the 30 days up to now); \`to\` after \`from\`, at most ${MAX_PERIOD_DAYS} days later, not in the future (VALIDATION_ERROR). Admins of the account only (ACCESS_DENIED for members).`;

const eventSummary = z.object({ event_id: z.string(), stream: z.string(), revision: z.number().int(), type: z.string(), processing_region: z.string(), recorded_at: z.string(), hash: z.string() }).nullable();
const fileDigest = z.object({ sha256: z.string(), rows: z.number().int() });
const summarySchema = z
  .object({
    summary: z.object({
      format: z.literal('photoverify-compliance-summary/1'),
      service: z.string(),
      account_id: z.string(),
      period: z.object({ from: z.string(), to: z.string() }),
      generated_at: z.string(),
      event_count: z.number().int(),
      counts_by_region: z.record(z.string(), z.number().int()),
      counts_by_type: z.record(z.string(), z.number().int()),
      first_event: eventSummary,
      last_event: eventSummary,
      chain_heads: z.array(z.object({ stream: z.string(), revision: z.number().int(), hash: z.string(), recorded_at: z.string() })),
      processing: z.object({ configured_region: z.string(), eu_only: z.literal(true), eu_region_rule: z.string(), enforcement: z.string(), events_outside_eu: z.number().int() }),
      files: z.object({ columns: z.array(z.string()), 'events.jsonl': fileDigest, 'events.csv': fileDigest }),
    }),
    signature: z.object({
      algorithm: z.literal('ES256'),
      value: z.string().describe('base64 of the IEEE P1363 r||s ECDSA P-256 signature over the UTF-8 bytes of `signed`'),
      signed: z.string().describe('The canonical JSON of `summary` (keys sorted, no whitespace): exactly the bytes signed'),
      certificate_chain: z.array(z.string()).describe('PEM certificates, the signer first: the service signing key, as for anchors'),
    }),
  })
  .openapi('ComplianceSummary');

export function complianceRoutes(deps: AppDeps): RouteSpec[] {
  return [
    route({
      method: 'get',
      path: '/v1/compliance/events',
      tag: 'compliance',
      summary: "Your account's processing events of a period, as JSON Lines or CSV (streamed)",
      description: `${periodRules} One row per event: id, stream, revision, type, processing region, actor, correlation and causation ids, when it occurred and was recorded, its position in the log and its hash-chain link \`hash\` (docs/audit.md). No event data. Rows are in the order the events occurred (the log's among equal times) and stream as they are read, so a year of events neither times out nor waits to be assembled; the signed summary (GET /v1/compliance/summary, same period) gives each file's SHA-256 and row count. CSV is RFC 4180 (CRLF, quoted where needed); a cell that begins with = + - @, a tab or a carriage return gets a leading apostrophe so no spreadsheet reads it as a formula.`,
      auth: 'any',
      query: z.strictObject({ ...period, format: z.enum(['jsonl', 'csv']).default('jsonl').describe('jsonl: one JSON object per line (application/x-ndjson); csv: a header line, then one line per event (text/csv)') }),
      responses: {
        200: { description: 'The events, one per line', contentTypes: ['application/x-ndjson', 'text/csv'] },
        400: { description: 'VALIDATION_ERROR: the period is inverted, longer than 366 days or in the future' },
        403: { description: 'ACCESS_DENIED: only admins of the account export its evidence' },
      },
      handler: async ({ query, principal }) => {
        const { period: checked, body } = await exportEvents(deps, principal, query, query.format);
        const name = `events-${checked.from.toISOString()}-${checked.to.toISOString()}`.replaceAll(':', '');
        return {
          status: 200,
          headers: {
            'Content-Type': query.format === 'csv' ? 'text/csv; charset=utf-8; header=present' : 'application/x-ndjson; charset=utf-8',
            // A spreadsheet or browser must not read the rows as anything else (they quote the account's own texts).
            'X-Content-Type-Options': 'nosniff',
            'Content-Disposition': `attachment; filename="${name}.${query.format}"`,
            'Cache-Control': 'no-store',
          },
          stream: body,
        };
      },
    }),
    route({
      method: 'get',
      path: '/v1/compliance/summary',
      tag: 'compliance',
      summary: 'The signed summary of a period: counts per processing region and event type, first and last event, chain heads, the EU-only setting',
      description: `${periodRules} \`summary.processing\` gives the configured region and the rule that keeps processing in the EU (the service does not start with a region outside it), and how many events of the period were recorded elsewhere (0). \`chain_heads\`: for each of your streams with events in the period, its last event before \`to\`. \`files\`: the SHA-256 and row count of GET /v1/compliance/events for the same period in each format. \`signature\` is ES256 over the canonical JSON of \`summary\` with the service's signing key (the key that signs anchors; its certificate is \`certificate_chain\`).`,
      auth: 'any',
      query: z.strictObject(period),
      responses: {
        200: { description: 'The signed summary', schema: summarySchema },
        400: { description: 'VALIDATION_ERROR: the period is inverted, longer than 366 days or in the future' },
        403: { description: 'ACCESS_DENIED: only admins of the account export its evidence' },
      },
      handler: async ({ query, principal }) => ({ status: 200, headers: { 'Cache-Control': 'no-store' }, body: await complianceSummary(deps, principal, query) }),
    }),
  ];
}
