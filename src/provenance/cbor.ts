/**
 * A deterministic CBOR encoder for the handful of types a COSE_Sign1 uses. Hand-written
 * (rather than cbor-x) because padding the signature to an exact byte count needs exact,
 * predictable encodings of every length prefix.
 */

export type CborValue =
  | number
  | string
  | Uint8Array
  | null
  | CborValue[]
  | CborMap
  | CborTagged;

/** Keys keep insertion order; COSE header maps mix integer and text labels. */
export class CborMap {
  constructor(readonly entries: Array<[number | string, CborValue]>) {}
}

export class CborTagged {
  constructor(
    readonly tag: number,
    readonly value: CborValue,
  ) {}
}

function head(major: number, value: number): Uint8Array {
  const m = major << 5;
  if (value < 24) return Uint8Array.of(m | value);
  if (value < 0x100) return Uint8Array.of(m | 24, value);
  if (value < 0x10000) return Uint8Array.of(m | 25, value >> 8, value & 0xff);
  const out = Buffer.alloc(5);
  out[0] = m | 26;
  out.writeUInt32BE(value, 1);
  return out;
}

export function encodeCbor(value: CborValue): Uint8Array {
  if (value === null) return Uint8Array.of(0xf6);
  if (typeof value === 'number') {
    if (!Number.isInteger(value)) throw new TypeError('encodeCbor: only integers are supported');
    return value >= 0 ? head(0, value) : head(1, -1 - value);
  }
  if (typeof value === 'string') {
    const bytes = Buffer.from(value, 'utf8');
    return Buffer.concat([head(3, bytes.length), bytes]);
  }
  if (value instanceof Uint8Array) return Buffer.concat([head(2, value.length), value]);
  if (Array.isArray(value)) return Buffer.concat([head(4, value.length), ...value.map(encodeCbor)]);
  if (value instanceof CborMap) {
    const parts = value.entries.flatMap(([k, v]) => [encodeCbor(k), encodeCbor(v)]);
    return Buffer.concat([head(5, value.entries.length), ...parts]);
  }
  return Buffer.concat([head(6, value.tag), encodeCbor(value.value)]);
}
