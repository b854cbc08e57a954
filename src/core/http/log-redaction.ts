/**
 * A feature's credential-bearing URLs, as the request log must not show them (DESIGN.md's
 * robustness rules; D-085): share links' tokens, pre-signed upload ids. The HTTP adapter applies
 * every module's redactions (adapters/http/log-redaction.ts) besides the core's signed URLs.
 */
export interface LogRedaction {
  /** The URL (request line, a redirect's Location) with the feature's credentials replaced by "[redacted]". */
  url(url: string): string;
  /** A serialized request (pino's shape) without the feature's credentials: its URL, parsed parts and headers. */
  request<R extends SerializedRequest>(req: R): R;
}

export type SerializedRequest = { url?: string; params?: unknown; query?: unknown; headers?: Record<string, unknown> };
