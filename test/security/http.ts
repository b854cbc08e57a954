/**
 * Raw requests for the authorisation matrix: every answer kept whole (status, headers, body text),
 * redirects not followed, so a leak in a header or a Location is seen as well as one in a body.
 */

export interface RawRequest {
  method: string;
  /** Path and query, e.g. /v1/tags/ or /blobs/k?exp=…; percent-encoded as sent. */
  path: string;
  headers?: Record<string, string>;
  json?: unknown;
  form?: FormData;
  /** A browser's form (application/x-www-form-urlencoded): the web app's POSTs. */
  urlencoded?: Record<string, string>;
  bytes?: Uint8Array;
}

export interface RawAnswer {
  status: number;
  headers: Headers;
  text: string;
}

export async function send(baseUrl: string, request: RawRequest): Promise<RawAnswer> {
  const headers: Record<string, string> = { ...request.headers };
  let body: BodyInit | undefined;
  if (request.json !== undefined) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(request.json);
  } else if (request.form) body = request.form;
  else if (request.urlencoded) {
    headers['content-type'] = 'application/x-www-form-urlencoded';
    body = new URLSearchParams(request.urlencoded).toString();
  }
  else if (request.bytes) {
    headers['content-type'] = 'application/octet-stream';
    body = new Blob([new Uint8Array(request.bytes)]);
  }
  const response = await fetch(`${baseUrl}${request.path}`, { method: request.method, headers, body, redirect: 'manual' });
  return { status: response.status, headers: response.headers, text: await response.text() };
}

/** Everything of an answer a client can read, as one string to search. */
export function readable(answer: RawAnswer): string {
  const headers = [...answer.headers.entries()].map(([name, value]) => `${name}: ${value}`).join('\n');
  return `${headers}\n\n${answer.text}`;
}

export interface RpcAnswer {
  /** The HTTP status of the POST /mcp. */
  status: number;
  headers: Headers;
  text: string;
  /** The JSON-RPC response (result or error), when the exchange got that far. */
  message?: { result?: any; error?: { code: number; message: string } };
}

/**
 * One JSON-RPC request to the stateless MCP endpoint, as a client without the SDK sends it
 * (the matrix needs the HTTP answer too: invalid credentials never reach the protocol).
 */
export async function rpc(baseUrl: string, headers: Record<string, string>, method: string, params: unknown): Promise<RpcAnswer> {
  const answer = await send(baseUrl, {
    method: 'POST',
    path: '/mcp',
    headers: { ...headers, accept: 'application/json, text/event-stream' },
    json: { jsonrpc: '2.0', id: 1, method, params },
  });
  let message: RpcAnswer['message'];
  if (answer.status === 200) {
    // Streamable HTTP answers with an event stream (progress, then the response) or plain JSON.
    const payloads = answer.headers.get('content-type')?.includes('text/event-stream')
      ? answer.text.split('\n').filter((line) => line.startsWith('data:')).map((line) => line.slice(5).trim())
      : [answer.text];
    for (const payload of payloads) {
      const parsed = JSON.parse(payload) as { id?: unknown; result?: unknown; error?: { code: number; message: string } };
      if (parsed.id === 1) message = parsed;
    }
  }
  return { ...answer, message };
}
