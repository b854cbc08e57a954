import type { Request, RequestHandler, Response } from 'express';
import express from 'express';
import { AppError } from '../../core/errors.js';
import { invalidUtf8At, notUtf8Message, NOT_UTF8_TYPE } from '../../core/text/utf8.js';
import { invalidRequest, refuseUnrepresentable } from '../../core/http/validation.js';

/**
 * Bounded JSON parsing for every JSON door (REST and /mcp), DESIGN.md's robustness rules.
 *
 * A byte limit alone does not bound the work: 18 MB of `{"k0":1,"k1":1,…}` (1.5 million keys)
 * fits /mcp's limit and took JSON.parse and the MCP SDK's schema checks 51 s of one thread,
 * stalling every other request. So the raw bytes are scanned first (a cheap pass that skips
 * string contents with the native indexOf) and a body with more entries or deeper nesting than
 * any request of this API needs is refused before it is parsed. After parsing, text that
 * PostgreSQL's JSON cannot hold (NUL, unpaired surrogates) is refused with 422 before any use
 * case sees it. Bytes that are not UTF-8 are refused before decoding (body-parser would put
 * U+FFFD in their place), naming the field they are in (issue 36 item 9). Decisions: D-083
 * (limits), D-084 (what is refused and how).
 */

/**
 * Object keys plus array items, counted over the whole body. The largest legitimate bodies
 * (an MCP initialize, a list of invitations or tags) hold a few hundred.
 */
export const MAX_JSON_ENTRIES = 10_000;
/** Nesting of objects and arrays. JSON-RPC with tool arguments and file objects is under 8 deep. */
export const MAX_JSON_DEPTH = 32;

/** Unauthenticated REST bodies (registration, login, accepting an invitation) are well under 2 KiB. */
const ANONYMOUS_REST_LIMIT_BYTES = 16 * 1024;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_OBJECT = 0x7b;
const OPEN_ARRAY = 0x5b;
const CLOSE_OBJECT = 0x7d;
const CLOSE_ARRAY = 0x5d;
const COMMA = 0x2c;

export type StructureVerdict = { ok: true; entries: number; depth: number } | { ok: false; reason: 'entries' | 'depth' };

/**
 * Counts entries (commas and opened containers: an upper bound of keys plus items) and the
 * deepest nesting of raw JSON bytes, stopping at the first limit passed. Malformed JSON is not
 * judged here (JSON.parse refuses it); a quote or backslash never occurs inside a multi-byte
 * UTF-8 sequence, so scanning bytes is exact.
 */
export function scanJsonStructure(bytes: Uint8Array, limits = { entries: MAX_JSON_ENTRIES, depth: MAX_JSON_DEPTH }): StructureVerdict {
  const buffer = Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let entries = 0;
  let depth = 0;
  let deepest = 0;
  let at = 0;
  while (at < buffer.length) {
    const byte = buffer[at]!;
    if (byte === QUOTE) {
      at = endOfString(buffer, at + 1);
      continue;
    }
    if (byte === OPEN_OBJECT || byte === OPEN_ARRAY) {
      entries++;
      depth++;
      if (depth > limits.depth) return { ok: false, reason: 'depth' };
      if (depth > deepest) deepest = depth;
    } else if (byte === CLOSE_OBJECT || byte === CLOSE_ARRAY) {
      depth--;
    } else if (byte === COMMA) {
      entries++;
    }
    if (entries > limits.entries) return { ok: false, reason: 'entries' };
    at++;
  }
  return { ok: true, entries, depth: deepest };
}

/** The index after the quote closing a string whose contents start at `from` (the end of the buffer when unterminated). */
function endOfString(buffer: Buffer, from: number): number {
  let at = from;
  for (;;) {
    const quote = buffer.indexOf(QUOTE, at);
    if (quote === -1) return buffer.length;
    let backslashes = 0;
    for (let k = quote - 1; k >= at && buffer[k] === BACKSLASH; k--) backslashes++;
    at = quote + 1;
    if (backslashes % 2 === 0) return at;
  }
}

/**
 * Where in a JSON text the byte at `offset` is: the path of keys and indexes to the string that
 * holds it, and whether that string is an object key (the path then ends at the object). Read
 * with the same string skipping as the structure scan; the bytes before `offset` are valid UTF-8.
 */
export function jsonPathAt(buffer: Buffer, offset: number): { path: (string | number)[]; inKey: boolean } {
  type Frame = { kind: 'object'; key?: string; expectingKey: boolean } | { kind: 'array'; index: number };
  const stack: Frame[] = [];
  const pathOf = (inKey: boolean) =>
    stack.flatMap((frame, i): (string | number)[] => {
      if (frame.kind === 'array') return [frame.index];
      return (inKey && i === stack.length - 1) || frame.key === undefined ? [] : [frame.key];
    });
  let at = 0;
  while (at < offset && at < buffer.length) {
    const byte = buffer[at]!;
    const top = stack.at(-1);
    if (byte === QUOTE) {
      const end = endOfString(buffer, at + 1);
      const isKey = top?.kind === 'object' && top.expectingKey;
      if (end > offset) return { path: pathOf(isKey), inKey: isKey };
      if (top?.kind === 'object' && isKey) {
        const raw = buffer.toString('utf8', at, end);
        try {
          top.key = JSON.parse(raw) as string;
        } catch {
          top.key = raw.slice(1, -1);
        }
        top.expectingKey = false;
      }
      at = end;
      continue;
    }
    if (byte === OPEN_OBJECT) stack.push({ kind: 'object', expectingKey: true });
    else if (byte === OPEN_ARRAY) stack.push({ kind: 'array', index: 0 });
    else if (byte === CLOSE_OBJECT || byte === CLOSE_ARRAY) stack.pop();
    else if (byte === COMMA && top) {
      if (top.kind === 'object') top.expectingKey = true;
      else top.index++;
    }
    at++;
  }
  return { path: pathOf(false), inKey: false };
}

/** Refuses a JSON body that is not valid UTF-8, in the 422 list form naming the field (or key) the bytes are in. */
export function refuseInvalidUtf8(bytes: Buffer): void {
  const at = invalidUtf8At(bytes);
  if (at === -1) return;
  const { path, inKey } = jsonPathAt(bytes, at);
  throw invalidRequest([{ loc: ['body', ...path], msg: `${inKey ? 'An object key: ' : ''}${notUtf8Message(bytes, at)}`, type: NOT_UTF8_TYPE }]);
}

/** Whether a JSON door's error says the body is not JSON text at all: malformed, or not UTF-8 (the MCP door answers both as a JSON-RPC parse error). */
export function isUnparsableJson(error: unknown): boolean {
  if ((error as { type?: string })?.type === 'entity.parse.failed') return true;
  return error instanceof Error && 'issues' in error && Array.isArray(error.issues) && error.issues.some((issue: { type?: string }) => issue.type === NOT_UTF8_TYPE);
}

/** body-parser's check of the raw bytes, before it decodes them: a bounded structure, then UTF-8 (the charset it decodes as). */
function verifyJsonBytes(req: Request, res: Response, bytes: Buffer, encoding: string): void {
  refuseOversizedStructure(req, res, bytes);
  if (encoding.toLowerCase().replace('_', '-') === 'utf-8') refuseInvalidUtf8(bytes);
}

function refuseOversizedStructure(_req: Request, _res: Response, bytes: Buffer): void {
  const verdict = scanJsonStructure(bytes);
  if (verdict.ok) return;
  throw verdict.reason === 'entries'
    ? new AppError('PAYLOAD_TOO_LARGE', `The JSON body has more than ${MAX_JSON_ENTRIES} keys and array items in all.`, {
        suggestion: 'Send a smaller JSON body; no request of this API needs that many entries.',
        details: { limit: MAX_JSON_ENTRIES, counted: 'keys and array items' },
      })
    : new AppError('PAYLOAD_TOO_LARGE', `The JSON body is nested more than ${MAX_JSON_DEPTH} levels deep.`, {
        suggestion: 'Send a flatter JSON body; no request of this API nests that deep.',
        details: { limit: MAX_JSON_DEPTH, counted: 'nesting depth' },
      });
}

const refuseUnrepresentableBody: RequestHandler = (req, _res, next) => {
  try {
    if (req.body !== undefined) refuseUnrepresentable('body', req.body);
  } catch (error) {
    next(error);
    return;
  }
  next();
};

/**
 * The JSON parser of a door: at most `limit` bytes (after inflating a gzip, deflate or br body,
 * so a compression bomb stops at the limit), a bounded structure, representable text.
 */
export function boundedJson(limit: number, type: string[]): RequestHandler[] {
  return [express.json({ limit, strict: true, type, verify: verifyJsonBytes }), refuseUnrepresentableBody];
}

/** Credentials sent in headers (valid or not): authentication itself comes later, per route. */
const sendsCredentials = (req: Request): boolean => Boolean(req.headers.authorization || req.headers['x-api-key']);

/**
 * The REST JSON door, limited per caller: a request without credentials (only registration,
 * login and accepting an invitation take a body without them) gets the smallest limit.
 */
export function restJsonParser(limit: number): RequestHandler {
  const type = ['application/json', 'application/*+json'];
  const [withCredentials, withCredentialsText] = boundedJson(limit, type) as [RequestHandler, RequestHandler];
  const [anonymous, anonymousText] = boundedJson(Math.min(limit, ANONYMOUS_REST_LIMIT_BYTES), type) as [RequestHandler, RequestHandler];
  return (req, res, next) => {
    const [parse, check] = sendsCredentials(req) ? [withCredentials, withCredentialsText] : [anonymous, anonymousText];
    parse(req, res, (error?: unknown) => (error ? next(error) : check(req, res, next)));
  };
}
