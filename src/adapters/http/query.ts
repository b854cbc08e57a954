import querystring from 'node:querystring';
import { ValidationError } from '../../core/errors.js';

/**
 * express's "query parser": node's querystring, except that a %-escape that is malformed or
 * whose bytes are not UTF-8 (`%ff`, an overlong `%C0%AF`, a CESU-8 surrogate) refuses the request
 * with 400 VALIDATION_ERROR, as the path's do, instead of being read as U+FFFD: a search or a
 * filter is never run on text the client did not send (issue 36 item 9). querystring would catch
 * a decoder that throws and fall back to its lossy unescape, so the decoder only notes it.
 */
export function strictQuery(raw: string): querystring.ParsedUrlQuery {
  let malformed: string | undefined;
  const parsed = querystring.parse(raw, '&', '=', {
    decodeURIComponent: (text) => {
      try {
        return decodeURIComponent(text);
      } catch {
        malformed ??= text;
        return text;
      }
    },
  });
  if (malformed !== undefined) {
    throw new ValidationError(`The query string holds a malformed percent-encoding (${JSON.stringify(malformed.slice(0, 40))}: a % not followed by two hexadecimal digits, or bytes that are not UTF-8).`, {
      suggestion: 'Percent-encode the UTF-8 bytes of each character (e.g. é as %C3%A9).',
    });
  }
  return parsed;
}
