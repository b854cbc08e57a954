import { OpenAPIRegistry, OpenApiGeneratorV31, extendZodWithOpenApi, type RouteConfig } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';
import type { RouteSpec } from '../../core/http/route-spec.js';

extendZodWithOpenApi(z);

export const errorEnvelopeSchema = z
  .object({
    detail: z.object({
      error_code: z.string(),
      message: z.string(),
      suggestion: z.string().optional(),
      details: z.record(z.string(), z.unknown()).optional(),
    }),
  })
  .openapi('ErrorEnvelope');

export const validationErrorSchema = z
  .object({ detail: z.array(z.object({ loc: z.array(z.union([z.string(), z.number()])), msg: z.string(), type: z.string() })) })
  .openapi('ValidationErrorList');

/** A 422 comes in either shape: request validation (the list) or a domain rule (the envelope, UnprocessableError). */
export const unprocessableSchema = z.union([validationErrorSchema, errorEnvelopeSchema]).openapi('UnprocessableError');

/** The MCP transport's own refusals (wrong Accept, Host or method, a malformed JSON-RPC message) are JSON-RPC error objects. */
export const jsonRpcErrorSchema = z
  .object({
    jsonrpc: z.literal('2.0'),
    error: z.object({ code: z.number().int(), message: z.string(), data: z.unknown().optional() }),
    id: z.union([z.string(), z.number(), z.null()]),
  })
  .openapi('JsonRpcError');

/** An HTML page or a file: documented as a string of that media type (only JSON bodies have a schema worth checking). */
export const textBodySchema = z.string();

export const isJsonMediaType = (type: string): boolean => /^application\/(?:[\w.+-]*\+)?json$/i.test(type.split(';')[0]!.trim());


export function createRegistry(): OpenAPIRegistry {
  const registry = new OpenAPIRegistry();
  registry.registerComponent('securitySchemes', 'bearerAuth', {
    type: 'http',
    scheme: 'bearer',
    description: 'A JWT from POST /v1/accounts/login, or an API key (pv_...) sent as a bearer token.',
  });
  registry.registerComponent('securitySchemes', 'apiKeyHeader', { type: 'apiKey', in: 'header', name: 'X-API-Key' });
  return registry;
}

export function buildDocument(registry: OpenAPIRegistry, serverUrl: string) {
  return new OpenApiGeneratorV31(registry.definitions).generateDocument({
    openapi: '3.1.0',
    info: {
      title: 'Photo Authenticity Verification Service',
      version: '1.0.0',
      description:
        'Proves a JPEG is a faithful rendering of a real camera RAW, or reads and validates the C2PA Content Credentials a file carries. Error bodies: {"detail": {"error_code", "message", "suggestion"?, "details"?}}; a 422 is either request validation, {"detail": [{"loc", "msg", "type"}]}, or a domain rule in that envelope. Pages answer their errors with an HTML error page.',
    },
    servers: [{ url: serverUrl }],
  });
}

const errorDescriptions: Record<number, string> = {
  400: 'Bad request: a malformed percent-encoding in the path or the query string, a body that is not what its Content-Encoding says, or a rule the message names',
  401: 'Credentials missing, or sent but invalid (sent credentials must be valid on every route, public ones too)',
  402: 'Quota or budget used',
  403: 'Access denied',
  404: 'Not found',
  409: 'Conflict',
  410: 'Gone',
  413: 'Payload too large',
  415: 'Unsupported body encoding or charset',
  422: 'Validation error: request validation ({"detail": [{loc, msg, type}]}) or a domain rule (the error envelope)',
  429: 'Rate limit exceeded (Retry-After says when to come back)',
  503: 'Service unavailable',
};

/**
 * The error statuses any route of this shape can answer, besides those it declares: they come
 * from the layers in front of every handler (auth.ts, the JSON body parser, express's path
 * decoding, request validation), so each route's document names them without its spec having to.
 */
function layerErrorStatuses(spec: RouteSpec): number[] {
  // Credentials sent but invalid are a 401 on every route that reads them; none sent, on every non-public one.
  const statuses = spec.auth === 'ignored' ? [] : [401];
  // A read-scoped key changing something, or an API key where a login is required.
  if (spec.auth === 'jwt' || (spec.auth === 'any' && spec.method !== 'get')) statuses.push(403);
  // express decodes path parameters (a malformed %-escape is a 400); validation answers 422.
  if (spec.params) statuses.push(400, 422);
  if (spec.query) statuses.push(422);
  // The JSON parser reads a JSON body on every route that takes one before the handler runs:
  // malformed (422), too large (413), an unknown charset or encoding (415), a body that is not
  // what its Content-Encoding says (400).
  if (spec.method !== 'get') statuses.push(400, 413, 415, 422);
  return statuses;
}

const LOCATION = { Location: { description: 'Where to go', schema: { type: 'string' as const } } };

/** One response's content: JSON media types carry the schema, pages and files are strings of their type. */
function contentOf(types: readonly string[], schema: z.ZodType | undefined) {
  return Object.fromEntries(types.map((type) => [type, { schema: isJsonMediaType(type) ? (schema ?? z.unknown()) : textBodySchema }]));
}

/**
 * Registers a route in the OpenAPI document from the same zod schemas that validate it, with
 * every answer it can give: its declared ones, and every error the layers in front of it can
 * answer (layerErrorStatuses), each with its body (the error envelope, the 422 list or envelope,
 * or a page route's HTML error page) and media type; a redirect names its Location header.
 */
export function documentRoute(registry: OpenAPIRegistry, spec: RouteSpec): void {
  const responses: RouteConfig['responses'] = {};
  for (const [key, response] of Object.entries(spec.responses)) {
    const status = Number(key);
    if (status >= 400) continue;
    const types = response.contentTypes ?? [spec.produces ?? 'application/json'];
    const hasBody = status !== 204 && status !== 304 && (status < 300 || status >= 400) && (response.schema || spec.produces || response.contentTypes);
    responses[status] = {
      description: response.description,
      ...(status >= 300 && status < 400 ? { headers: LOCATION } : {}),
      ...(hasBody ? { content: contentOf(types, response.schema) } : {}),
    };
  }
  const errorStatuses = new Set([...Object.keys(spec.responses).map(Number).filter((s) => s >= 400), ...layerErrorStatuses(spec)]);
  for (const status of [...errorStatuses].sort()) {
    const declared = spec.responses[status];
    const description = declared?.description ?? errorDescriptions[status] ?? 'Error';
    responses[status] = spec.errorPage
      ? // A page answers its errors with an HTML error page, not JSON.
        { description: `${description} (an HTML error page)`, content: { 'text/html': { schema: textBodySchema } } }
      : { description, content: { 'application/json': { schema: status === 422 ? unprocessableSchema : errorEnvelopeSchema } } };
  }
  registry.registerPath({
    method: spec.method,
    path: spec.path,
    summary: spec.summary,
    description: spec.description,
    tags: [spec.tag],
    security: spec.auth === 'none' || spec.auth === 'ignored' ? [] : [{ bearerAuth: [] }, { apiKeyHeader: [] }],
    request: {
      ...(spec.params ? { params: spec.params as z.ZodObject } : {}),
      ...(spec.query ? { query: spec.query as z.ZodObject } : {}),
      ...(spec.body ? { body: { content: { 'application/json': { schema: spec.body } }, required: true } } : {}),
      ...(spec.multipart ? { body: { content: { 'multipart/form-data': { schema: spec.multipart } }, required: true } } : {}),
    },
    responses,
  });
}

/** Any refusal at /mcp: the transport's JSON-RPC errors, or the error middleware's bodies (credentials, body parser). */
const mcpErrorSchema = z.union([jsonRpcErrorSchema, errorEnvelopeSchema, validationErrorSchema]).openapi('McpError');

const jsonRpcMessageSchema = z
  .object({
    jsonrpc: z.literal('2.0'),
    id: z.union([z.string(), z.number().int()]).optional().describe('Absent for a notification (answered 202).'),
    method: z.string().describe('E.g. initialize, tools/list, tools/call.'),
    params: z.record(z.string(), z.unknown()).optional(),
  })
  .openapi('JsonRpcMessage');

/**
 * /mcp in /openapi.json: the transport endpoint only; the tools are listed through the protocol
 * (tools/list, docs/mcp.md). Every answer the endpoint gives is named with its body.
 */
export function documentMcpEndpoint(registry: OpenAPIRegistry, path: string): void {
  const error = (description: string) => ({ description, content: { 'application/json': { schema: mcpErrorSchema } } });
  registry.registerPath({
    method: 'post',
    path,
    summary: 'MCP endpoint for agents (JSON-RPC 2.0 over Streamable HTTP)',
    description:
      'Model Context Protocol server (Streamable HTTP, stateless). The tools are listed through the protocol (tools/list), not here; see docs/mcp.md. Optional credentials: an API key as a bearer token; without one, the keyless free tier. A tool that fails answers 200 with a result whose isError is true.',
    tags: ['mcp'],
    security: [{}, { bearerAuth: [] }],
    request: {
      headers: z.object({ accept: z.literal('application/json, text/event-stream').describe('Both media types, as the Streamable HTTP transport requires (else 406).') }),
      body: { required: true, content: { 'application/json': { schema: jsonRpcMessageSchema } } },
    },
    responses: {
      200: {
        description: 'JSON-RPC response, as JSON or as an event stream carrying progress notifications and the result',
        content: {
          'application/json': { schema: z.record(z.string(), z.unknown()) },
          // Each event: "message" events whose data is a JSON-RPC message.
          'text/event-stream': { schema: z.object({ event: z.string().optional(), data: z.string(), id: z.string().optional() }) },
        },
      },
      202: { description: 'Notification or response accepted (no body)' },
      400: error('A JSON-RPC error: -32700 Parse error (malformed JSON, or bytes that are not UTF-8) or -32600 Invalid Request (JSON that is not a JSON-RPC message); or a body that is not what its Content-Encoding says'),
      401: error('Credentials sent but invalid'),
      403: error('Host header not allowed'),
      406: error('The Accept header must allow application/json and text/event-stream'),
      413: error('Body larger than the MCP limit, or JSON beyond the structural limits (keys and items, nesting)'),
      415: error('Not application/json, or an unknown charset or body encoding'),
      422: error('Text that cannot be stored: a NUL or an unpaired surrogate (the REST list form, naming the field)'),
      429: error('Too many requests from this caller'),
    },
  });
  for (const method of ['get', 'delete'] as const) {
    registry.registerPath({
      method,
      path,
      summary: 'Not allowed: the MCP server is stateless (POST only)',
      tags: ['mcp'],
      responses: {
        405: { description: 'Method not allowed', headers: { Allow: { description: 'POST', schema: { type: 'string' } } }, content: { 'application/json': { schema: jsonRpcErrorSchema } } },
      },
    });
  }
}
