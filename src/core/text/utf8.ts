/**
 * Strict UTF-8 (DESIGN.md "Bytes are never altered"): a body, form field or file name that is
 * not valid UTF-8 (a stray or truncated byte, an overlong form such as C0 AF, a CESU-8 surrogate
 * such as ED A0 80, raw Latin-1) is refused, never decoded with U+FFFD in place of its bytes.
 * Pure functions, used at every door that decodes bytes.
 */

const strict = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** The text `bytes` encode, or null when they are not valid UTF-8. A byte-order mark is kept as U+FEFF. */
export function decodeUtf8Strictly(bytes: Uint8Array): string | null {
  try {
    return strict.decode(bytes);
  } catch {
    return null;
  }
}

/**
 * The offset of the first byte that does not start or continue a well-formed UTF-8 sequence
 * (Unicode 15, table 3-7), or -1 when all of `bytes` is valid UTF-8.
 */
export function invalidUtf8At(bytes: Uint8Array): number {
  if (decodeUtf8Strictly(bytes) !== null) return -1;
  for (let at = 0; at < bytes.length; ) {
    const lead = bytes[at]!;
    if (lead < 0x80) {
      at++;
      continue;
    }
    const [following, low, high] = sequenceOf(lead);
    if (following === 0) return at;
    for (let k = 1; k <= following; k++) {
      const next = bytes[at + k];
      const [min, max] = k === 1 ? [low, high] : [0x80, 0xbf];
      if (next === undefined || next < min || next > max) return at;
    }
    at += following + 1;
  }
  return -1;
}

/** A lead byte's continuation count and the range its first continuation byte must be in (0: not a lead byte). */
function sequenceOf(lead: number): [number, number, number] {
  if (lead >= 0xc2 && lead <= 0xdf) return [1, 0x80, 0xbf];
  if (lead === 0xe0) return [2, 0xa0, 0xbf]; // no overlong 3-byte forms
  if (lead === 0xed) return [2, 0x80, 0x9f]; // no UTF-16 surrogates (CESU-8)
  if (lead >= 0xe1 && lead <= 0xef) return [2, 0x80, 0xbf];
  if (lead === 0xf0) return [3, 0x90, 0xbf]; // no overlong 4-byte forms
  if (lead >= 0xf1 && lead <= 0xf3) return [3, 0x80, 0xbf];
  if (lead === 0xf4) return [3, 0x80, 0x8f]; // nothing above U+10FFFF
  return [0, 0, 0];
}

/** What a refusal says: where the bytes stop being UTF-8 and what to send instead. */
export function notUtf8Message(bytes: Uint8Array, at: number): string {
  const shown = Array.from(bytes.subarray(at, at + 4), (b) => b.toString(16).toUpperCase().padStart(2, '0')).join(' ');
  return `Not valid UTF-8 (at byte ${at}: ${shown}). Send text as UTF-8: it is refused, never altered.`;
}

export const NOT_UTF8_TYPE = 'utf8_invalid';
