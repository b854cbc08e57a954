import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError, type CallToolResult, type Tool } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import type { AppDeps } from '../../core/module/deps.js';
import { AuthenticationError } from '../../core/errors.js';
import { assertMayChange, type Call } from '../../core/principal.js';
import type { ToolProgress, ToolSpec } from '../../core/http/tool-spec.js';
import { issuesFrom } from '../../core/http/validation.js';
import { toolError, validationError } from './tool-errors.js';

export const SERVER_INFO = { name: 'photoverify', version: '1.0.0' };

const INSTRUCTIONS = [
  'Photo authenticity verification. verify_image checks the C2PA Content Credentials of one image (free);',
  'verify_pair checks a camera RAW against the JPEG/HEIF rendered from it (counts toward the monthly quota).',
  'Pass files inline as base64, or for large files call create_upload, PUT the bytes to the returned URL and pass the upload ids.',
  'Without an API key (Authorization: Bearer <key>) only verify_image, verify_pair, create_upload and reading your own',
  'anonymous verifications (pass the anonymous_user_id you were given) are available, rate-limited per address.',
].join(' ');

/** A tool as tools/list shows it: JSON Schemas generated from the same zod schemas that validate. */
export function describeTool(spec: ToolSpec): Tool {
  return {
    name: spec.name,
    title: spec.title,
    description: spec.description,
    inputSchema: z.toJSONSchema(spec.input, { io: 'input' }) as Tool['inputSchema'],
    outputSchema: z.toJSONSchema(spec.output, { io: 'output' }) as Tool['outputSchema'],
    annotations: { title: spec.title, readOnlyHint: spec.readOnly, destructiveHint: spec.destructive ?? false, openWorldHint: false },
  };
}

/** The modules' tools, by name, and as tools/list shows them (built once: the schemas do not change). */
export interface ToolCatalogue {
  byName: ReadonlyMap<string, ToolSpec>;
  listed: readonly Tool[];
}

export function toolCatalogue(tools: readonly ToolSpec[]): ToolCatalogue {
  const byName = new Map<string, ToolSpec>();
  for (const spec of tools) {
    if (byName.has(spec.name)) throw new Error(`Two modules declare the MCP tool ${spec.name}`);
    byName.set(spec.name, spec);
  }
  return { byName, listed: tools.map(describeTool) };
}

/**
 * One MCP server for one HTTP request (stateless Streamable HTTP): lists the modules' tools and
 * runs them for the caller the request authenticated as. The low-level SDK server is used so
 * that argument validation, access checks and errors all go through one mapping (tool-errors.ts).
 */
export function createToolServer(deps: AppDeps, catalogue: ToolCatalogue, call: Call): Server {
  const server = new Server(SERVER_INFO, { capabilities: { tools: {} }, instructions: INSTRUCTIONS });

  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: [...catalogue.listed] }));
  server.setRequestHandler(CallToolRequestSchema, async (request, extra): Promise<CallToolResult> => {
    const spec = catalogue.byName.get(request.params.name);
    // An unknown tool is a protocol error (JSON-RPC -32602), not a tool failure.
    if (!spec) throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${request.params.name}. Call tools/list for the available tools.`);
    try {
      admit(spec, call);
      const parsed = spec.input.safeParse(request.params.arguments ?? {});
      if (!parsed.success) return validationError(issuesFrom('body', parsed.error, request.params.arguments ?? {}));
      const token = extra._meta?.progressToken;
      const progress: ToolProgress = {
        signal: extra.signal,
        report: async (value, total, message) => {
          if (token === undefined) return;
          await extra.sendNotification({ method: 'notifications/progress', params: { progressToken: token, progress: value, ...(total === undefined ? {} : { total }), message } });
        },
      };
      const result = await spec.handler(call, parsed.data, progress);
      // Stripped to the declared fields, so structuredContent always matches outputSchema.
      const output = spec.output.parse(result.output) as Record<string, unknown>;
      return { content: [{ type: 'text', text: result.summary }, { type: 'text', text: JSON.stringify(output) }], structuredContent: output };
    } catch (error) {
      return toolError(error, deps.log, call.correlationId);
    }
  });
  return server;
}

/** Keyless callers reach only the free tier's tools; read-scoped keys only tools that change nothing. */
function admit(spec: ToolSpec, call: Call): void {
  if (spec.access === 'key' && !call.principal) {
    throw new AuthenticationError('AUTHENTICATION_REQUIRED', `The tool ${spec.name} requires an API key.`, {
      suggestion: 'Configure the MCP client to send "Authorization: Bearer <API key>" (create keys with POST /v1/apikeys/). Without a key only verify_image, verify_pair, create_upload and reading your anonymous verifications are available.',
    });
  }
  if (!spec.readOnly) assertMayChange(call.principal, `call ${spec.name}`);
}
