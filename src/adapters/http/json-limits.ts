import type { Request, RequestHandler, Response } from 'express';
import express from 'express';
import { AppError } from '../../core/errors.js';
import { unrepresentableText, UNREPRESENTABLE_MESSAGE } from '../../core/text.js';
import { invalidRequest, type RequestPart } from '../../core/validation.js';

/**
 * Bounded JSON parsing for every JSON door (REST and /mcp), DESIGN.md's robustness rules.
 *
 * A byte limit alone does not bound the work: 18 MB of `{"k0":1,"k1":1,…}` (1.5 million keys)
 * fits /mcp's limit and took JSON.parse and the MCP SDK's schema checks 51 s of one thread,
 * stalling every other request. So the raw bytes are scanned first (a cheap pass that skips
 * string contents with the native indexOf) and a body with more entries or deeper nesting than
 * any request of this API needs is refused before it is parsed. After parsing, text that
 * PostgreSQL's JSON cannot hold (NUL, unpaired surrogates) is refused with 422 before any use
 * case sees it. Decisions: D-083 (limits), D-084 (what is refused and how).
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

/** Throws the spec's 422 list form, `loc` naming the field, when a value holds text PostgreSQL's JSON cannot store. */
export function refuseUnrepresentable(part: RequestPart, value: unknown): void {
  const found = unrepresentableText(value);
  if (!found) return;
  throw invalidRequest([{ loc: [part, ...found.path], msg: `${UNREPRESENTABLE_MESSAGE} (found: ${found.reason})`, type: 'string_unrepresentable' }]);
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
  return [express.json({ limit, strict: true, type, verify: refuseOversizedStructure }), refuseUnrepresentableBody];
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
