/**
 * Minimal DER (ASN.1) encoding and reading: just what building X.509 certificates, RFC 3161
 * requests and unwrapping RFC 3161 responses needs. No general ASN.1 library is installed and
 * these few structures do not justify one.
 */

import { children, contentOf, readTlv, whole } from '../core/audit/der-read.js';
export type Der = Uint8Array;

function encodeLength(length: number): Uint8Array {
  if (length < 0x80) return Uint8Array.of(length);
  const bytes: number[] = [];
  for (let rest = length; rest > 0; rest = Math.floor(rest / 256)) bytes.unshift(rest & 0xff);
  return Uint8Array.of(0x80 | bytes.length, ...bytes);
}

export function tlv(tag: number, ...contents: Uint8Array[]): Der {
  const body = Buffer.concat(contents);
  return Buffer.concat([Uint8Array.of(tag), encodeLength(body.length), body]);
}

export const sequence = (...items: Der[]): Der => tlv(0x30, ...items);
export const set = (...items: Der[]): Der => tlv(0x31, ...items);
export const octetString = (bytes: Uint8Array): Der => tlv(0x04, bytes);
export const utf8String = (text: string): Der => tlv(0x0c, Buffer.from(text, 'utf8'));
export const printableString = (text: string): Der => tlv(0x13, Buffer.from(text, 'ascii'));
export const nullValue = (): Der => Uint8Array.of(0x05, 0x00);
export const boolean = (value: boolean): Der => Uint8Array.of(0x01, 0x01, value ? 0xff : 0x00);
/** A BIT STRING whose last byte has `unusedBits` padding bits. */
export const bitString = (bytes: Uint8Array, unusedBits = 0): Der => tlv(0x03, Uint8Array.of(unusedBits), bytes);
/** [n] EXPLICIT: constructed context-specific wrapper. */
export const explicit = (n: number, inner: Der): Der => tlv(0xa0 | n, inner);
/** [n] IMPLICIT over a primitive value. */
export const implicitPrimitive = (n: number, bytes: Uint8Array): Der => tlv(0x80 | n, bytes);

/** A non-negative INTEGER from unsigned big-endian bytes or a number. */
export function integer(value: number | bigint | Uint8Array): Der {
  let bytes: Uint8Array;
  if (value instanceof Uint8Array) {
    let start = 0;
    while (start < value.length - 1 && value[start] === 0) start++;
    bytes = value.subarray(start);
  } else {
    let hex = BigInt(value).toString(16);
    if (hex.length % 2) hex = `0${hex}`;
    bytes = Buffer.from(hex, 'hex');
  }
  if ((bytes[0] ?? 0) & 0x80) bytes = Buffer.concat([Uint8Array.of(0), bytes]);
  if (bytes.length === 0) bytes = Uint8Array.of(0);
  return tlv(0x02, bytes);
}

export function oid(dotted: string): Der {
  const parts = dotted.split('.').map((p) => BigInt(p));
  const [first = 0n, second = 0n, ...rest] = parts;
  const out: number[] = [Number(first * 40n + second)];
  for (const part of rest) {
    const chunk: number[] = [];
    let v = part;
    do {
      chunk.unshift(Number(v & 0x7fn));
      v >>= 7n;
    } while (v > 0n);
    for (let i = 0; i < chunk.length - 1; i++) chunk[i]! |= 0x80;
    out.push(...chunk);
  }
  return tlv(0x06, Uint8Array.from(out));
}

/** UTCTime before 2050, GeneralizedTime from 2050 (RFC 5280 4.1.2.5). */
export function time(date: Date): Der {
  const iso = date.toISOString().replace(/[-:T]/g, '').slice(0, 14); // YYYYMMDDHHMMSS
  return date.getUTCFullYear() < 2050
    ? tlv(0x17, Buffer.from(`${iso.slice(2)}Z`, 'ascii'))
    : tlv(0x18, Buffer.from(`${iso}Z`, 'ascii'));
}

/** One decoded element: its tag, its content, and the whole encoding. */
export interface DerElement {
  tag: number;
  content: Uint8Array;
  encoded: Uint8Array;
}

/** Reads one element at `offset` (core/audit/der-read.ts, the one reader); throws RangeError on malformed or truncated input. */
export function readElement(bytes: Uint8Array, offset = 0): DerElement {
  const tlv = readTlv(bytes, offset);
  return { tag: tlv.tag, content: contentOf(bytes, tlv), encoded: whole(bytes, tlv) };
}

/** The children of a constructed element, in order. */
export function readChildren(element: DerElement): DerElement[] {
  const outer = readTlv(element.encoded, 0);
  return children(outer, element.encoded).map((tlv) => ({ tag: tlv.tag, content: contentOf(element.encoded, tlv), encoded: whole(element.encoded, tlv) }));
}
