import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import { hostHeaderValidation } from '@modelcontextprotocol/sdk/server/middleware/hostHeaderValidation.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { Express, Request, Response } from 'express';
import type { AppDeps } from '../../core/deps.js';
import { newCall, type Principal } from '../../core/principal.js';
import type { ToolSpec } from '../../core/tool-spec.js';
import { createToolServer, toolCatalogue } from '../mcp/server.js';
import { credentialsOf } from './auth.js';
import { documentMcpEndpoint } from './openapi.js';
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
  // a key get no smaller limit here; the structural bound makes the limit safe (D-083).
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

/** /mcp in /openapi.json (its answers are described with the rest of the document). */
export function documentMcp(registry: OpenAPIRegistry): void {
  documentMcpEndpoint(registry, MCP_PATH);
}
