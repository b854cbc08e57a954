/**
 * The HTTP side of `photoverify verify`: upload the files, read the record back. Every failure
 * becomes a `ClientError` whose message is ready to print, so the command only decides exit codes.
 */
import { openAsBlob } from 'node:fs';
import { stat } from 'node:fs/promises';
import path from 'node:path';

/** The part of the Verification (spec 2.1) the command reads; --json prints the whole body. */
export interface Verification {
  id: string;
  status: 'pending' | 'queued' | 'in_progress' | 'completed' | 'failed';
  verification_mode?: 'raw_pair' | 'image_only';
  failure_reason?: string | null;
  result?: boolean | null;
  result_confidence?: number;
  assurance_level?: string | null;
  assurance_reason?: string | null;
  verdict?: string | null;
  verdict_reason?: string | null;
  capture_verified?: boolean | null;
  short_code?: string;
  name?: string;
  results?: { result: boolean | null; confidence_score: number; details?: Record<string, unknown> }[];
  [field: string]: unknown;
}

/**
 * `status` is the HTTP status when the server answered, undefined when it could not be reached.
 * `retryable` marks failures a poll loop may ride out (network blips, 5xx, 429).
 */
export class ClientError extends Error {
  constructor(
    message: string,
    readonly status?: number,
    readonly errorCode?: string,
    readonly retryable = false,
  ) {
    super(message);
  }
}

export interface InputFile {
  field: 'image' | 'raw';
  path: string;
  size: number;
}

/** Checked before any byte is sent: a typo in a path should not cost an upload of the other file. */
export async function checkInput(field: InputFile['field'], file: string): Promise<InputFile> {
  let info;
  try {
    info = await stat(file);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const why = code === 'ENOENT' ? 'no such file' : code === 'EACCES' ? 'permission denied' : (code ?? (error as Error).message);
    throw new ClientError(`cannot read the --${field} file ${file}: ${why}`);
  }
  if (!info.isFile()) throw new ClientError(`the --${field} path ${file} is not a regular file`);
  return { field, path: file, size: info.size };
}

export class VerificationClient {
  private readonly base: string;

  constructor(
    baseUrl: string,
    private readonly key: string,
  ) {
    this.base = baseUrl.replace(/\/+$/, '');
  }

  /** POST /v1/verifications/ → the new id. */
  async create(files: InputFile[]): Promise<string> {
    const form = new FormData();
    for (const file of files) {
      // openAsBlob is backed by the file on disk: a 100 MB RAW is streamed, never held in memory.
      const blob = await openAsBlob(file.path);
      form.append(file.field, blob, path.basename(file.path));
    }
    const url = `${this.base}/v1/verifications/`;
    let response: Response;
    try {
      response = await fetch(url, { method: 'POST', headers: this.authHeaders(), body: form });
    } catch (error) {
      const total = files.reduce((n, f) => n + f.size, 0);
      // A server refusing an oversized body may close the socket before we finish sending it,
      // in which case the 413 is never read: say what most likely happened.
      const hint = isConnectionCut(error) && total > 1024 * 1024 ? ' (the server cut the upload short; the file may exceed its upload size limit)' : '';
      throw new ClientError(`${unreachable(url, error)}${hint}`);
    }
    const body = await readBody(response);
    if (response.status !== 201) throw httpError('POST', url, response, body);
    const id = (body as { id?: unknown } | null)?.id;
    if (typeof id !== 'string') throw new ClientError(`POST ${url} answered 201 without an id: ${JSON.stringify(body)}`, 201);
    return id;
  }

  /** GET /v1/verifications/{id}. A hung server must not outlive the command's own timeout. */
  async get(id: string, timeoutMs: number): Promise<Verification> {
    const url = `${this.base}/v1/verifications/${encodeURIComponent(id)}`;
    let response: Response;
    try {
      response = await fetch(url, { headers: this.authHeaders(), signal: AbortSignal.timeout(Math.max(1000, timeoutMs)) });
    } catch (error) {
      throw new ClientError(unreachable(url, error), undefined, undefined, true);
    }
    const body = await readBody(response);
    if (response.status !== 200) throw httpError('GET', url, response, body);
    return body as Verification;
  }

  /**
   * GET any path of the service as text (the audit bundle, the published certificate), with the
   * key when `authenticated`, and the same readable errors as the other calls.
   */
  async text(pathname: string, options: { authenticated: boolean; timeoutMs: number }): Promise<string> {
    const url = `${this.base}${pathname}`;
    let response: Response;
    try {
      response = await fetch(url, { headers: options.authenticated ? this.authHeaders() : {}, signal: AbortSignal.timeout(options.timeoutMs) });
    } catch (error) {
      throw new ClientError(unreachable(url, error));
    }
    if (response.status !== 200) throw httpError('GET', url, response, await readBody(response));
    return response.text();
  }

  /**
   * JWTs go in Authorization: Bearer (the only place the service reads them); API keys in
   * X-API-Key, so a mistyped key is reported as INVALID_API_KEY rather than as a bad token.
   */
  private authHeaders(): Record<string, string> {
    const jwt = /^[\w-]+\.[\w-]+\.[\w-]*$/.test(this.key);
    return { accept: 'application/json', ...(jwt ? { authorization: `Bearer ${this.key}` } : { 'x-api-key': this.key }) };
  }
}

async function readBody(response: Response): Promise<unknown> {
  const text = await response.text().catch(() => '');
  try {
    return text ? JSON.parse(text) : null;
  } catch {
    return text;
  }
}

/** The service's error envelopes (spec section 7) turned into one or more readable lines. */
function httpError(method: string, url: string, response: Response, body: unknown): ClientError {
  const status = response.status;
  const detail = (body as { detail?: unknown } | null)?.detail;
  const lines = [`${method} ${url} failed: HTTP ${status}${response.statusText ? ` ${response.statusText}` : ''}`];
  let code: string | undefined;
  if (detail && typeof detail === 'object' && !Array.isArray(detail)) {
    const d = detail as { error_code?: string; message?: string; suggestion?: string };
    code = d.error_code;
    lines.push(`  ${d.error_code ?? 'ERROR'}: ${d.message ?? '(no message)'}`);
    if (d.suggestion) lines.push(`  suggestion: ${d.suggestion}`);
  } else if (Array.isArray(detail)) {
    // 422: [{loc, msg, type}]
    code = 'VALIDATION_ERROR';
    for (const issue of detail as { loc?: unknown[]; msg?: string; type?: string }[]) {
      lines.push(`  ${(issue.loc ?? []).join('.') || 'request'}: ${issue.msg ?? '?'}${issue.type ? ` (${issue.type})` : ''}`);
    }
  } else if (typeof detail === 'string') {
    lines.push(`  ${detail}`);
  } else if (typeof body === 'string' && body.trim()) {
    lines.push(`  ${body.trim().slice(0, 300)}`);
  }
  // Context the envelope may not give: what to do about the common cases.
  if (status === 401) lines.push('  hint: check --key / PHOTOVERIFY_API_KEY (an API key from POST /v1/apikeys/, or a login token); the REST API has no keyless use (agents get a keyless tier over MCP at /mcp).');
  if (status === 404 && !code) lines.push('  hint: check --url / PHOTOVERIFY_URL: it should be the service root, e.g. https://host:8080');
  if (status === 413 && !detail) lines.push('  hint: the file exceeds the server\'s upload size limit.');
  const retryable = status >= 500 || status === 429;
  return new ClientError(lines.join('\n'), status, code, retryable);
}

function causeCode(error: unknown): string | undefined {
  const cause = (error as { cause?: { code?: string } })?.cause;
  return cause?.code ?? (error as { code?: string })?.code;
}

function isConnectionCut(error: unknown): boolean {
  return ['ECONNRESET', 'EPIPE', 'UND_ERR_SOCKET'].includes(causeCode(error) ?? '');
}

function unreachable(url: string, error: unknown): string {
  if ((error as Error)?.name === 'TimeoutError') return `${url} did not answer in time`;
  const code = causeCode(error);
  const reasons: Record<string, string> = {
    ECONNREFUSED: 'connection refused (is the service running on that host and port?)',
    ENOTFOUND: 'host not found',
    EAI_AGAIN: 'host name lookup failed (temporary DNS failure)',
    ECONNRESET: 'connection reset',
    EPIPE: 'connection closed while sending',
    UND_ERR_SOCKET: 'connection closed by the server',
    ETIMEDOUT: 'connection timed out',
    UND_ERR_CONNECT_TIMEOUT: 'connection timed out',
    CERT_HAS_EXPIRED: 'the server\'s TLS certificate has expired',
    DEPTH_ZERO_SELF_SIGNED_CERT: 'the server\'s TLS certificate is self-signed',
  };
  const cause = (error as { cause?: { message?: string } })?.cause?.message;
  return `cannot reach ${url}: ${(code && reasons[code]) ?? cause ?? (error as Error)?.message ?? String(error)}${code && reasons[code] ? ` [${code}]` : ''}`;
}
