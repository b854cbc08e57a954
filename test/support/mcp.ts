import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult, Progress } from '@modelcontextprotocol/sdk/types.js';

/** The SDK's own client over the socket, as an agent connects: with an API key as bearer token, or keyless. */
export async function connectMcp(baseUrl: string, apiKey?: string): Promise<Client> {
  const client = new Client({ name: 'photoverify-tests', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(`${baseUrl}/mcp`), {
    requestInit: { headers: apiKey ? { authorization: `Bearer ${apiKey}` } : {} },
  });
  await client.connect(transport);
  // The client validates structuredContent against each tool's outputSchema once it has listed them.
  await client.listTools();
  return client;
}

export interface ToolOutcome {
  result: CallToolResult;
  /** structuredContent of a success. */
  output: any;
  /** The error object of a tool error ({error_code, message, suggestion, details}). */
  error: { error_code: string; message: string; suggestion?: string; details?: any } | undefined;
  progress: Progress[];
}

export async function callTool(client: Client, name: string, args: Record<string, unknown>, options: { timeout?: number } = {}): Promise<ToolOutcome> {
  const progress: Progress[] = [];
  const result = (await client.callTool({ name, arguments: args }, undefined, {
    timeout: options.timeout ?? 300_000,
    resetTimeoutOnProgress: true,
    onprogress: (p) => progress.push(p),
  })) as CallToolResult;
  const text = result.content[0]?.type === 'text' ? result.content[0].text : '';
  return { result, output: result.structuredContent, error: result.isError ? JSON.parse(text) : undefined, progress };
}

export const inline = (filename: string, bytes: Buffer) => ({ filename, content_base64: bytes.toString('base64') });

/** A keyless verification through MCP (the free tier): returns the tool's structured output, or its error. */
export async function keylessVerify(baseUrl: string, files: { image: Buffer; raw?: Buffer; imageName?: string }, anonymousUserId?: string) {
  const client = await connectMcp(baseUrl);
  try {
    const args: Record<string, unknown> = { image: inline(files.imageName ?? (files.raw ? 'a.jpg' : 'a.webp'), files.image), wait_seconds: 0 };
    if (files.raw) args.raw = inline('a.dng', files.raw);
    if (anonymousUserId) args.anonymous_user_id = anonymousUserId;
    return await callTool(client, files.raw ? 'verify_pair' : 'verify_image', args);
  } finally {
    await client.close();
  }
}
