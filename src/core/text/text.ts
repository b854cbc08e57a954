/**
 * Text rules shared by every door (REST JSON, multipart, MCP, pages' forms) and by the event
 * store's last check. Pure functions: no I/O, no zod.
 *
 * Two different concerns:
 * - unrepresentable text: PostgreSQL's json/jsonb cannot hold an unpaired UTF-16 surrogate or
 *   U+0000 (`invalid input syntax for type json`), so such a string must never reach an append;
 * - name-unsafe characters: controls and bidi formatting characters are invisible or reorder
 *   what is shown around them (a report page, an e-mail subject), so names refuse them.
 */

import { UnprocessableError } from '../errors.js';

/** An unpaired high or low surrogate, or NUL. */
const UNREPRESENTABLE = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** True when PostgreSQL's json/jsonb could not store this string. */
export const isUnrepresentable = (text: string): boolean => UNREPRESENTABLE.test(text);

export interface UnrepresentableText {
  /** Where in the value: object keys and array indexes from the root ([] for the value itself). */
  path: (string | number)[];
  reason: 'NUL character' | 'unpaired surrogate';
}

/**
 * The first string (value or object key, at any depth) PostgreSQL's JSON cannot hold, or null.
 * Iterative, so a deeply nested value cannot overflow the stack.
 */
export function unrepresentableText(value: unknown): UnrepresentableText | null {
  const pending: { value: unknown; path: (string | number)[] }[] = [{ value, path: [] }];
  while (pending.length > 0) {
    const { value: current, path } = pending.pop()!;
    if (typeof current === 'string') {
      if (isUnrepresentable(current)) return { path, reason: reasonFor(current) };
    } else if (Array.isArray(current)) {
      current.forEach((item, index) => pending.push({ value: item, path: [...path, index] }));
    } else if (current !== null && typeof current === 'object') {
      for (const [key, item] of Object.entries(current)) {
        if (isUnrepresentable(key)) return { path: [...path, key], reason: reasonFor(key) };
        pending.push({ value: item, path: [...path, key] });
      }
    }
  }
  return null;
}

/**
 * Throws 422 VALIDATION_ERROR when `value` holds text PostgreSQL's JSON cannot store: the last
 * check before an append (toNewEvent), so such text is a client's mistake, never a 500 nor a
 * half-written change. The doors refuse it first, field by field.
 */
export function assertStorableText(value: unknown): void {
  const found = unrepresentableText(value);
  if (!found) return;
  const field = found.path.length > 0 ? ` (in ${found.path.join('.')})` : '';
  throw new UnprocessableError(`The request holds text that cannot be stored: a ${found.reason}${field}.`, {
    suggestion: 'Send well-formed UTF-8 text without U+0000 and without unpaired surrogates (\\ud800-\\udfff escapes).',
    details: { reason: found.reason },
  });
}

const reasonFor = (text: string): UnrepresentableText['reason'] => (text.includes('\u0000') ? 'NUL character' : 'unpaired surrogate');

/**
 * Characters a name (account, user, file, key description) must not carry: C0 and C1 controls
 * and DEL (\p{Cc}: NUL, BEL, ESC, CR, LF, tab…), the bidi embeddings, overrides and isolates
 * (U+202A-U+202E, U+2066-U+2069) that reorder the text shown after them, the line and paragraph
 * separators (U+2028, U+2029), and the invisible zero-width space and byte-order mark (U+200B,
 * U+FEFF). Zero-width (non-)joiners (U+200C, U+200D) stay: emoji sequences and several scripts
 * need them.
 */
const NAME_UNSAFE = /[\p{Cc}\u200B\u2028\u2029\u202A-\u202E\u2066-\u2069\uFEFF]/u;

/** True when a one-line name holds a control, bidi formatting or invisible character (see NAME_UNSAFE). */
export const hasNameUnsafeCharacter = (name: string): boolean => NAME_UNSAFE.test(name);

/**
 * The bidi embeddings, overrides and isolates alone: what multi-line text (a comment) must not
 * carry either, since they reorder what a reader sees after them (a "Trojan Source" reversal).
 */
const BIDI_FORMATTING = /[\u202A-\u202E\u2066-\u2069]/u;
export const hasBidiFormatting = (text: string): boolean => BIDI_FORMATTING.test(text);

/**
 * The rule for multi-line text shown to people (a comment, a request's instructions): tab and
 * line breaks (LF, CR) are text; every other control character (C0, DEL, C1), the bidi
 * embeddings, overrides and isolates (see BIDI_FORMATTING) and the invisible zero-width space and
 * byte-order mark (U+200B, U+FEFF) are refused. The reason, for the refusal's message, or null.
 */
const MULTI_LINE_CONTROL = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F]/u;
const INVISIBLE = /[\u200B\uFEFF]/u;
export function multiLineTextProblem(text: string): string | null {
  if (MULTI_LINE_CONTROL.test(text)) return 'Control characters other than tab and line breaks are not allowed.';
  if (hasBidiFormatting(text)) return 'Bidirectional formatting characters (U+202A-U+202E, U+2066-U+2069) are not allowed: they reorder the text shown after them.';
  if (INVISIBLE.test(text)) return 'Invisible characters (U+200B, U+FEFF) are not allowed.';
  return null;
}

export const NAME_UNSAFE_MESSAGE = 'Control characters (line breaks, tabs, escape…), bidirectional formatting characters (U+202A-U+202E, U+2066-U+2069) and invisible characters (U+200B, U+FEFF) are not allowed.';
export const UNREPRESENTABLE_MESSAGE = 'Text cannot contain a NUL character (U+0000) or an unpaired UTF-16 surrogate (U+D800-U+DFFF).';

const NAME_UNSAFE_GLOBAL = new RegExp(NAME_UNSAFE.source, 'gu');
const BREAKS = /[\t\n\v\f\r\u0085\u2028\u2029]/u;
const SPACES = /\s+/gu;

/**
 * A name made safe to store and show rather than refused (file names, see cleanFileName):
 * unpaired surrogates become U+FFFD, line breaks and tabs a space, other controls and the
 * bidi/invisible characters are removed, runs of white space become one space, NFC. Empty
 * when nothing printable remains.
 */
export function cleanName(raw: string): string {
  const wellFormed = raw.replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, '\uFFFD');
  return wellFormed.replace(NAME_UNSAFE_GLOBAL, (character) => (BREAKS.test(character) ? ' ' : '')).replace(SPACES, ' ').trim().normalize('NFC');
}

/** The longest file name kept, in UTF-16 units (the MCP tools' limit). */
export const MAX_FILE_NAME_LENGTH = 255;

/**
 * A received file's name as stored and shown: `cleanName`, then cut to MAX_FILE_NAME_LENGTH
 * between characters (never inside a surrogate pair), keeping a short extension.
 */
export function cleanFileName(raw: string): string {
  const name = cleanName(raw);
  if (name.length <= MAX_FILE_NAME_LENGTH) return name;
  const extension = /\.[^.\s]{1,16}$/u.exec(name)?.[0] ?? '';
  return cutAt(name.slice(0, name.length - extension.length), MAX_FILE_NAME_LENGTH - extension.length) + extension;
}

/** The longest prefix of at most `length` UTF-16 units that does not split a surrogate pair. */
function cutAt(text: string, length: number): string {
  const cut = text.slice(0, length);
  return /[\uD800-\uDBFF]$/.test(cut) ? cut.slice(0, -1) : cut;
}
