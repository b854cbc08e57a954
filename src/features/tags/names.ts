import { UnprocessableError } from '../../core/errors.js';
import { hasNameUnsafeCharacter } from '../../core/text/text.js';

/** Spec 8: tag names are 1-40 characters without commas; at most 20 tags on a verification; at most 10 names in the list filter. */
export const MAX_TAG_NAME_LENGTH = 40;
export const MAX_TAGS_PER_VERIFICATION = 20;
export const MAX_TAG_FILTER_NAMES = 10;
/** Not in the spec (D-032): bounds the vocabulary stream an account's tag commands fold. */
export const MAX_TAGS_PER_ACCOUNT = 1000;

const COLOR = /^#[0-9a-f]{6}$/i;

/**
 * A name as it is stored: Unicode NFC, surrounding white space removed (so " Sports" and
 * "Sports" are one tag). Throws 422 VALIDATION_ERROR when the result breaks the name rules.
 * Length counts characters (code points), not UTF-16 units.
 */
export function checkTagName(raw: string): string {
  const name = raw.normalize('NFC').trim();
  const length = [...name].length;
  if (length < 1 || length > MAX_TAG_NAME_LENGTH) {
    throw new UnprocessableError(`A tag name must be 1-${MAX_TAG_NAME_LENGTH} characters long; "${raw.slice(0, 60)}" is ${length}.`, {
      suggestion: `Use a name of 1 to ${MAX_TAG_NAME_LENGTH} characters.`,
    });
  }
  if (name.includes(',')) {
    throw new UnprocessableError(`A tag name cannot contain a comma: "${name}".`, { suggestion: 'Commas separate names in the tags filter; use another character.' });
  }
  if (hasNameUnsafeCharacter(name)) {
    throw new UnprocessableError('A tag name cannot contain control characters (line breaks, tabs), bidirectional formatting characters (U+202A-U+202E, U+2066-U+2069) or invisible ones (U+200B, U+FEFF).', { suggestion: 'Use printable characters only.' });
  }
  return name;
}

/** The key names are unique by within an account (the read side stores it, so it lives there). */
export { tagKey } from '../../../projections/tags/index.js';

/** A colour as stored: `#rrggbb` in lower case; null clears it. Throws 422 VALIDATION_ERROR otherwise. */
export function checkColor(color: string | null): string | null {
  if (color === null) return null;
  if (!COLOR.test(color)) {
    throw new UnprocessableError(`Invalid colour "${color.slice(0, 40)}".`, { suggestion: 'Give the colour as #rrggbb (six hex digits), e.g. #1f77b4, or null for none.' });
  }
  return color.toLowerCase();
}

export const tooManyTags = (count: number) =>
  new UnprocessableError(`A verification can carry at most ${MAX_TAGS_PER_VERIFICATION} tags; this change would give it ${count}.`, {
    suggestion: 'Detach tags it no longer needs, or set a shorter list with PUT.',
  });
