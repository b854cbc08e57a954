/**
 * Reading DER (X.690) and PEM: the one reader of the service's certificate and timestamp code
 * (src/provenance/der.ts, x509.ts) and of the offline verifier (audit-verify.ts). Pure and
 * without Node built-ins (base64 through `atob`): the auditor's page loads this very file,
 * compiled. Malformed input throws a RangeError naming what is wrong.
 */

/** One element: its tag, where its whole encoding starts (`offset`), and where its content starts and ends. */
export interface Tlv {
  tag: number;
  offset: number;
  start: number;
  end: number;
}

/** The element at `offset` of `bytes` (definite lengths of up to 4 bytes, as DER has). */
export function readTlv(bytes: Uint8Array, offset: number): Tlv {
  if (offset + 2 > bytes.length) throw new RangeError('truncated DER');
  const tag = bytes[offset]!;
  let length = bytes[offset + 1]!;
  let start = offset + 2;
  if (length & 0x80) {
    const count = length & 0x7f;
    if (count === 0 || count > 4) throw new RangeError('unsupported DER length');
    if (start + count > bytes.length) throw new RangeError('truncated DER');
    length = 0;
    for (let i = 0; i < count; i++) length = length * 256 + bytes[start + i]!;
    start += count;
  }
  if (start + length > bytes.length) throw new RangeError('truncated DER');
  return { tag, offset, start, end: start + length };
}

/** The children of a constructed element, in order. */
export function children(parent: Tlv, bytes: Uint8Array): Tlv[] {
  const out: Tlv[] = [];
  for (let at = parent.start; at < parent.end; ) {
    const child = readTlv(bytes, at);
    out.push(child);
    at = child.end;
  }
  return out;
}

/** An element's whole encoding (tag, length and content). */
export const whole = (bytes: Uint8Array, tlv: Tlv): Uint8Array => bytes.subarray(tlv.offset, tlv.end);

/** An element's content. */
export const contentOf = (bytes: Uint8Array, tlv: Tlv): Uint8Array => bytes.subarray(tlv.start, tlv.end);

/** An OBJECT IDENTIFIER's content in dotted form. */
export function oidText(content: Uint8Array): string {
  const parts = [Math.floor(content[0]! / 40), content[0]! % 40];
  let value = 0;
  for (const byte of content.subarray(1)) {
    value = value * 128 + (byte & 0x7f);
    if (!(byte & 0x80)) (parts.push(value), (value = 0));
  }
  return parts.join('.');
}

/** The base64 text of every `CERTIFICATE` block of a PEM text, in order, without its armour and spaces. */
export function pemBlocks(pem: string): string[] {
  const blocks = pem.match(/-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g) ?? [];
  return blocks.map((block) => block.replace(/-----[A-Z ]+-----|\s/g, ''));
}

/** Base64 to bytes; RangeError on text that is not base64. */
export function base64ToBytes(text: string): Uint8Array {
  try {
    return Uint8Array.from(atob(text), (c) => c.charCodeAt(0));
  } catch {
    throw new RangeError('not base64');
  }
}

/** Every certificate of a PEM text, as DER, in order. */
export const pemToDerList = (pem: string): Uint8Array[] => pemBlocks(pem).map(base64ToBytes);
