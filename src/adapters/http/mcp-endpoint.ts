import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import { hostHeaderValidation } from '@modelcontextprotocol/sdk/server/middleware/hostHeaderValidation.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { Express, Request, Response } from 'express';
import type { AppDeps } from '../../core/deps.js';
import { newCall, type Principal } from '../../core/principal.js';
import type { ToolSpec } from '../../core/tool-spec.js';
import { createToolServer, toolCatalogue } from '../mcp/server.js';
import { credentialsOf } from './auth.js';
import { boundedJson } from './json-limits.js';

const MCP_PATH = '/mcp';

/**
 * The MCP door at /mcp: stateless Streamable HTTP (one server and transport per POST, so any
 * instance answers any request). Credentials are read like REST's; sent but invalid ones are a
 * 401 before any protocol exchange. No credentials: the keyless tier (the tools decide).
 * Host names other than the public one and loopback are refused (DNS rebinding).
 */
export function mountMcp(app: Express, deps: AppDeps, tools: readonly ToolSpec[]): void {
  const catalogue = toolCatalogue(tools);
  const hosts = ['localhost', '127.0.0.1', '[::1]', new URL(deps.config.PUBLIC_BASE_URL).hostname];
  // Inline files travel base64-encoded (4/3 of their size): room for an image and a RAW. That is
  // what the keyless tier itself needs (verify_pair with both files inline), so callers without
  // a key get no smaller limit here; the structural bound makes the limit safe (D-number in
  // docs/decisions.md: "bounded JSON").
  const bodyLimit = Math.ceil((deps.config.MCP_INLINE_MAX_BYTES * 2 * 4) / 3) + 64 * 1024;
  const json = boundedJson(bodyLimit, ['application/json']);
  // Credentials first: a caller whose key is invalid is refused before its body is read.
  const caller = async (req: Request, res: Response, next: () => void) => {
    res.locals.principal = await credentialsOf(deps, req);
    next();
  };

  app.post(MCP_PATH, hostHeaderValidation(hosts), caller, ...json, async (req: Request, res: Response) => {
    const principal = res.locals.principal as Principal | null;
    const call = newCall(principal, String(req.id), req.ip ?? 'unknown');
    const server = createToolServer(deps, catalogue, call);
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    res.on('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res, req.body);
  });
  // Stateless: no server-initiated stream to open (GET) and no session to end (DELETE).
  const notAllowed = (_req: Request, res: Response) => {
    res.status(405).setHeader('Allow', 'POST').json({ jsonrpc: '2.0', error: { code: -32000, message: 'Method not allowed: this MCP server is stateless; send JSON-RPC requests with POST.' }, id: null });
  };
  app.get(MCP_PATH, notAllowed);
  app.delete(MCP_PATH, notAllowed);
}

/** /mcp in /openapi.json: the transport endpoint only; the tools are listed through the protocol (docs/mcp.md). */
export function documentMcp(registry: OpenAPIRegistry): void {
  const description = 'Model Context Protocol server (Streamable HTTP, stateless). The tools are listed through the protocol (tools/list), not here; see docs/mcp.md. Optional credentials: an API key as a bearer token; without one, the keyless free tier.';
  registry.registerPath({
    method: 'post',
    path: MCP_PATH,
    summary: 'MCP endpoint for agents (JSON-RPC 2.0 over Streamable HTTP)',
    description,
    tags: ['mcp'],
    security: [{}, { bearerAuth: [] }],
    responses: {
      200: { description: 'JSON-RPC response (application/json or a text/event-stream carrying progress notifications and the result)' },
      202: { description: 'Notification or response accepted' },
      401: { description: 'Credentials sent but invalid' },
      403: { description: 'Host header not allowed' },
      406: { description: 'The Accept header must allow application/json and text/event-stream' },
    },
  });
  for (const method of ['get', 'delete'] as const) {
    registry.registerPath({ method, path: MCP_PATH, summary: 'Not allowed: the MCP server is stateless (POST only)', tags: ['mcp'], responses: { 405: { description: 'Method not allowed' } } });
  }
}
