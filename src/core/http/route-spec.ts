import type { z } from 'zod';
import './schemas.js'; // zod's .openapi() extension, before any route schema is built
import type { ParsedUpload } from '../blob-store.js';
import type { Call, Principal } from '../principal.js';

/**
 * A REST route as data: method, path, schemas and a handler that calls a use case. Features
 * declare these (their routes.ts) without touching express; the HTTP adapter (route.ts) binds
 * them and registers each in the OpenAPI document from the same zod schemas.
 */

/**
 * 'none': public (login, registration, pages and links that carry their own token).
 * 'ignored': public, and credentials are not read at all, so a wrong or expired one is no 401
 * (the health probe, as /openapi.json: a monitor's stale key must not look like an outage).
 * 'any': JWT or API key. 'jwt': a user session only (e.g. creating API keys). The keyless free
 * tier is not a REST thing: it lives on the MCP door (core/http/tool-spec.ts, D-040).
 */
export type AuthRequirement = 'none' | 'ignored' | 'any' | 'jwt';

export interface Reply {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
  /** A stream of bytes instead of a JSON body (downloads). */
  stream?: NodeJS.ReadableStream;
  /** An HTML document instead of a JSON body (server-rendered pages); sent as text/html; charset=utf-8. */
  html?: string;
}

/** What a page route's error page is given: the status the error mapping chose and the error's public words. */
export interface ErrorPageInput {
  status: number;
  code: string;
  message: string;
  suggestion?: string;
}

export type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';

export interface ResponseSpec {
  description: string;
  /** The JSON body's schema (a non-JSON body is documented as a string of its media type). */
  schema?: z.ZodType;
  /**
   * The media types this answer is sent as, when more than one (content negotiation, e.g. a JSON
   * index or an HTML page for browsers). Default: the route's `produces` for a 2xx, else JSON.
   */
  contentTypes?: readonly string[];
}

export interface UploadOptions {
  fileFields: readonly string[];
  textFields: readonly string[];
  maxBytes: number;
}

export interface HandlerInput<B, Q, P, A extends AuthRequirement> {
  body: B;
  query: Q;
  params: P;
  principal: A extends 'ignored' ? null : A extends 'none' ? Principal | null : Principal;
  /** The invocation handed to use cases (principal, correlation id, client address). */
  call: Call;
  /**
   * True when a GET route answers a HEAD request (HTTP gives HEAD the GET route's answer, without
   * the body). Link previewers and monitors send HEADs: a handler whose GET has side effects (a
   * view counted, a cookie set) skips them, and answers with the same status and headers otherwise.
   */
  head: boolean;
  /** A request header, for the few routes whose contract names one. */
  header(name: string): string | undefined;
  /** Streams a multipart body into staged blobs; routes with `multipart` call it when ready. */
  upload(options: UploadOptions): Promise<ParsedUpload>;
  /** The request body as raw bytes, for routes that take one file as the whole body (a pre-signed PUT). */
  rawBody(): NodeJS.ReadableStream;
}

export interface RouteSpec<B = unknown, Q = unknown, P = unknown, A extends AuthRequirement = AuthRequirement> {
  method: Method;
  /** OpenAPI path, e.g. '/v1/apikeys/{key_id}'. */
  path: string;
  summary: string;
  description?: string;
  tag: string;
  auth: A;
  body?: z.ZodType<B>;
  query?: z.ZodType<Q>;
  params?: z.ZodType<P>;
  /** Documents a multipart/form-data body; the handler receives it through `upload` (files are streamed). */
  multipart?: z.ZodType;
  /** Documents a non-JSON success body (e.g. a download's content type). */
  produces?: string;
  responses: Record<number, ResponseSpec>;
  /**
   * Pages: errors on this route are rendered by this function (an HTML reply) instead of the
   * JSON envelope. The status stays the error catalogue's; the reply's own status is ignored.
   */
  errorPage?: (error: ErrorPageInput) => Reply;
  handler: (input: HandlerInput<B, Q, P, A>) => Promise<Reply>;
}

/** Identity function that lets TypeScript infer a route's body, query and params types from its schemas. */
export function route<B = undefined, Q = undefined, P = undefined, A extends AuthRequirement = 'any'>(spec: RouteSpec<B, Q, P, A>): RouteSpec {
  return spec as unknown as RouteSpec;
}

export const redirect = (url: string): Reply => ({ status: 302, headers: { Location: url, 'Cache-Control': 'no-store' } });
