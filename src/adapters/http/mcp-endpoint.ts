import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import { hostHeaderValidation } from '@modelcontextprotocol/sdk/server/middleware/hostHeaderValidation.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { JSONRPCMessageSchema } from '@modelcontextprotocol/sdk/types.js';
import type { Express, NextFunction, Request, RequestHandler, Response } from 'express';
import type { AppDeps } from '../../core/module/deps.js';
import { newCall, type Principal } from '../../core/principal.js';
import type { ToolSpec } from '../../core/http/tool-spec.js';
import { createToolServer, toolCatalogue } from '../mcp/server.js';
import { credentialsOf } from './auth.js';
import { documentMcpEndpoint } from './openapi.js';
import { boundedJson, isUnparsableJson } from './json-limits.js';

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
  const json = jsonRpcBody(boundedJson(bodyLimit, ['application/json']));
  // Credentials first: a caller whose key is invalid is refused before its body is read.
  const caller = async (req: Request, res: Response, next: () => void) => {
    res.locals.principal = await credentialsOf(deps, req);
    next();
  };

  app.post(MCP_PATH, hostHeaderValidation(hosts), caller, json, async (req: Request, res: Response) => {
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

/** A JSON-RPC 2.0 error answer, as the SDK's Streamable HTTP transport writes its own (`id` null: the request's is unknown). */
function jsonRpcError(res: Response, status: number, code: number, message: string): void {
  res.status(status).json({ jsonrpc: '2.0', error: { code, message }, id: null });
}

/** One JSON-RPC message, or a non-empty batch of them (the SDK's own schema). */
const isJsonRpc = (body: unknown): boolean =>
  Array.isArray(body) ? body.length > 0 && body.every((m) => JSONRPCMessageSchema.safeParse(m).success) : JSONRPCMessageSchema.safeParse(body).success;

/**
 * The MCP door's body, read by the bounded JSON parser; what an MCP client must understand is
 * answered in JSON-RPC 2.0 at the status the SDK's transport gives it (400): a body that is not
 * JSON text (malformed, or not UTF-8) is -32700 Parse error, JSON that is not a JSON-RPC message
 * -32600 Invalid Request (issue 36 item 12). Limits (413), charsets (415) and unstorable text
 * (422) keep the REST error body, as documented.
 */
function jsonRpcBody([parse, check]: RequestHandler[]): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    parse!(req, res, (error?: unknown) => {
      if (error) {
        if (!isUnparsableJson(error)) return next(error);
        const issue = (error as { issues?: { loc: unknown[]; msg: string }[] }).issues?.[0];
        return jsonRpcError(res, 400, -32700, `Parse error: ${issue ? `${issue.loc.join('.')}: ${issue.msg}` : (error as Error).message}`);
      }
      check!(req, res, (refusal?: unknown) => {
        if (refusal) return next(refusal);
        if (!isJsonRpc(req.body)) return jsonRpcError(res, 400, -32600, 'Invalid Request: the body is JSON but not a JSON-RPC 2.0 message (jsonrpc "2.0", a method, an id for a request) or a batch of them.');
        next();
      });
    });
  };
}

/** /mcp in /openapi.json (its answers are described with the rest of the document). */
export function documentMcp(registry: OpenAPIRegistry): void {
  documentMcpEndpoint(registry, MCP_PATH);
}
