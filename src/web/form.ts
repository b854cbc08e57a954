import { AppError, ValidationError, type UnprocessableError } from '../core/errors.js';
import { decodeUtf8Strictly, invalidUtf8At, notUtf8Message, NOT_UTF8_TYPE } from '../core/text/utf8.js';
import { invalidRequest, refuseUnrepresentable } from '../core/http/validation.js';

/** A comment of 5,000 characters, URL-encoded, takes up to 60 KB (12 bytes a 4-byte character): anything larger is refused unread. */
const FORM_LIMIT_BYTES = 64 * 1024;

/**
 * A native form's body (application/x-www-form-urlencoded). The REST door parses JSON only, so
 * the app's POST routes read their body themselves, bounded, and keep the first value of each field.
 */
export async function readForm(body: NodeJS.ReadableStream, contentType: string | undefined): Promise<Map<string, string>> {
  if (!contentType?.toLowerCase().startsWith('application/x-www-form-urlencoded')) {
    throw new ValidationError('The form must be sent as application/x-www-form-urlencoded.', { suggestion: 'Send the page’s form as the browser does.' });
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : Buffer.from(chunk);
    size += bytes.length;
    if (size > FORM_LIMIT_BYTES) throw new ValidationError(`The form is larger than ${FORM_LIMIT_BYTES} bytes.`, { suggestion: 'Send the page’s form as it is.' });
    chunks.push(bytes);
  }
  const fields = new Map<string, string>();
  for (const [name, value] of formPairs(Buffer.concat(chunks))) if (!fields.has(name)) fields.set(name, value);
  return fields;
}

/**
 * The text rule of every JSON field (core/http/validation.ts: no NUL, no unpaired surrogate) over a
 * form's fields: the refusal (422 naming the field), or null. Not thrown by readForm, so that a
 * form whose use case validates through the REST schemas shows itself again with the schema's
 * words, as for any refused field.
 */
export function formTextRefusal(form: Map<string, string>): UnprocessableError | null {
  try {
    refuseUnrepresentable('body', Object.fromEntries(form));
    return null;
  } catch (error) {
    return error as UnprocessableError;
  }
}

/**
 * Runs a form's handler; should the form hold text no field may hold and the handler fail with
 * anything but a refusal of its own (the database refusing a NUL in a query: a 500), the answer
 * is the text rule's refusal instead (issue 36 item 1).
 */
export async function underFormTextRule<T>(form: Map<string, string>, run: () => Promise<T>): Promise<T> {
  const refusal = formTextRefusal(form);
  if (!refusal) return run();
  try {
    return await run();
  } catch (error) {
    throw error instanceof AppError ? error : refusal;
  }
}

/**
 * The form's name/value pairs, decoded as URLSearchParams decodes them (`+` is a space, `%XX` a
 * byte) except that bytes that are not UTF-8, sent raw or percent-encoded (raw Latin-1, `%FF`, an
 * overlong `%C0%AF`, a CESU-8 surrogate), are refused with 422 naming the field instead of being
 * replaced with U+FFFD (issue 36 item 9).
 */
function formPairs(body: Buffer): [string, string][] {
  const text = decodeUtf8Strictly(body);
  if (text === null) {
    const at = invalidUtf8At(body);
    const field = body.subarray(0, at).toString('latin1').split('&').at(-1)!.split('=')[0]!;
    const name = /^[A-Za-z0-9_-]+$/.test(field) ? field : undefined;
    throw invalidRequest([{ loc: ['body', ...(name ? [name] : [])], msg: notUtf8Message(body, at), type: NOT_UTF8_TYPE }]);
  }
  return text
    .split('&')
    .filter(Boolean)
    .map((pair): [string, string] => {
      const equals = pair.indexOf('=');
      const name = percentDecoded(equals === -1 ? pair : pair.slice(0, equals), []);
      return [name, percentDecoded(equals === -1 ? '' : pair.slice(equals + 1), ['body', name])];
    });
}

/** One name or value: `+` a space, `%XX` the byte XX (a `%` without two hex digits stays itself), the bytes read as strict UTF-8. */
function percentDecoded(encoded: string, loc: string[]): string {
  if (!encoded.includes('%')) return encoded.replaceAll('+', ' ');
  const raw = Buffer.from(encoded.replaceAll('+', ' '), 'utf8');
  const bytes: number[] = [];
  for (let at = 0; at < raw.length; at++) {
    const hex = raw[at] === 0x25 ? raw.toString('latin1', at + 1, at + 3) : '';
    if (/^[0-9A-Fa-f]{2}$/.test(hex)) {
      bytes.push(parseInt(hex, 16));
      at += 2;
    } else bytes.push(raw[at]!);
  }
  const decoded = Buffer.from(bytes);
  const text = decodeUtf8Strictly(decoded);
  if (text !== null) return text;
  throw invalidRequest([{ loc: loc.length > 0 ? loc : ['body'], msg: `${loc.length > 0 ? '' : 'A field name: '}${notUtf8Message(decoded, invalidUtf8At(decoded))}`, type: NOT_UTF8_TYPE }]);
}
