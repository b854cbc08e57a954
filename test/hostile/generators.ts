/**
 * Hostile files, built in memory from the shared fixtures (never copied): pixel and
 * decompression bombs in every format the upload accepts, truncations, byte flips inside C2PA's
 * JUMBF (JPEG APP11) and a RAW's TIFF IFD entries, polyglots, and files whose name lies.
 */
import zlib from 'node:zlib';
import { concat, fixture, noise } from '../support/file-variants.js';

export interface HostileFile {
  name: string;
  bytes: Uint8Array;
}

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});
function crc32(bytes: Uint8Array): number {
  let c = 0xffffffff;
  for (const b of bytes) c = CRC_TABLE[(c ^ b) & 0xff]! ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function pngChunk(type: string, data: Uint8Array): Uint8Array {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, 'latin1');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(concat(head.subarray(4), data)));
  return concat(head, data, crc);
}

/** An 8-bit greyscale PNG of the given size whose IDAT is `idat` (already deflated). */
function png(width: number, height: number, idat: Uint8Array): Uint8Array {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr.set([8, 0, 0, 0, 0], 8);
  return concat(Buffer.from('\x89PNG\r\n\x1a\n', 'latin1'), pngChunk('IHDR', ihdr), pngChunk('IDAT', idat), pngChunk('IEND', new Uint8Array(0)));
}

/** Deflates `size` zero bytes without holding them (a row of zeros is a filter byte and the pixels: all zero). */
async function deflatedZeros(size: number): Promise<Uint8Array> {
  const deflate = zlib.createDeflate({ level: 9 });
  const out: Buffer[] = [];
  deflate.on('data', (chunk: Buffer) => out.push(chunk));
  const done = new Promise((resolve) => deflate.on('end', resolve));
  const block = Buffer.alloc(1024 * 1024);
  for (let left = size; left > 0; left -= block.length) {
    if (!deflate.write(left >= block.length ? block : block.subarray(0, left))) await new Promise((r) => deflate.once('drain', r));
  }
  deflate.end();
  await done;
  return concat(...out);
}

/** The first SOFn marker's height/width set to 60000 × 60000. */
function jpegWithSize(jpeg: Uint8Array, width: number, height: number): Uint8Array {
  const copy = Buffer.from(jpeg);
  for (let i = 2; i + 9 < copy.length; ) {
    if (copy[i] !== 0xff) throw new Error('not at a marker');
    const marker = copy[i + 1]!;
    const length = copy.readUInt16BE(i + 2);
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
      copy.writeUInt16BE(height, i + 5);
      copy.writeUInt16BE(width, i + 7);
      return copy;
    }
    i += 2 + length;
  }
  throw new Error('no SOF marker');
}

/** A WebP whose canvas (VP8X) and frame (VP8/VP8L) claim the largest size the format can say. */
function webpHuge(webp: Uint8Array): Uint8Array {
  const copy = Buffer.from(webp);
  for (let i = 12; i + 8 <= copy.length; ) {
    const type = copy.toString('latin1', i, i + 4);
    const size = copy.readUInt32LE(i + 4);
    const data = i + 8;
    if (type === 'VP8X') {
      copy.writeUIntLE(0xffffff, data + 4, 3);
      copy.writeUIntLE(0xffffff, data + 7, 3);
    } else if (type === 'VP8 ') {
      copy.writeUInt16LE(0x3fff, data + 6);
      copy.writeUInt16LE(0x3fff, data + 8);
    } else if (type === 'VP8L') {
      // 14 bits width-1, 14 bits height-1, after the 0x2f signature byte.
      const bits = copy.readUInt32LE(data + 1);
      copy.writeUInt32LE(((bits & 0xf0000000) | 0x0fffffff) >>> 0, data + 1);
    }
    i = data + size + (size & 1);
  }
  return copy;
}

/** The IFD0 entries of a TIFF container: [offset of the entry, tag, type]. */
export function ifd0Entries(bytes: Uint8Array): { at: number; tag: number; type: number; little: boolean }[] {
  const view = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const little = view[0] === 0x49;
  const u16 = (o: number) => (little ? view.readUInt16LE(o) : view.readUInt16BE(o));
  const u32 = (o: number) => (little ? view.readUInt32LE(o) : view.readUInt32BE(o));
  const ifd = u32(4);
  return Array.from({ length: u16(ifd) }, (_, i) => ({ at: ifd + 2 + i * 12, tag: u16(ifd + 2 + i * 12), type: u16(ifd + 4 + i * 12), little }));
}

/** A TIFF whose ImageWidth and ImageLength say 60000 × 60000. */
function tiffHuge(tiff: Uint8Array): Uint8Array {
  const copy = Buffer.from(tiff);
  for (const entry of ifd0Entries(copy)) {
    if (entry.tag !== 256 && entry.tag !== 257) continue;
    if (entry.type === 3) entry.little ? copy.writeUInt16LE(60000, entry.at + 8) : copy.writeUInt16BE(60000, entry.at + 8);
    else entry.little ? copy.writeUInt32LE(60000, entry.at + 8) : copy.writeUInt32BE(60000, entry.at + 8);
  }
  return copy;
}

/** A GIF whose logical screen and first image descriptor say 65535 × 65535. */
function gifHuge(gif: Uint8Array): Uint8Array {
  const copy = Buffer.from(gif);
  copy.writeUInt16LE(0xffff, 6);
  copy.writeUInt16LE(0xffff, 8);
  const descriptor = copy.indexOf(0x2c, 13);
  if (descriptor > 0) {
    copy.writeUInt16LE(0xffff, descriptor + 5);
    copy.writeUInt16LE(0xffff, descriptor + 7);
  }
  return copy;
}

/** A HEIF/AVIF whose every image spatial extent ('ispe') says 60000 × 60000. */
function bmffHuge(file: Uint8Array): Uint8Array {
  const copy = Buffer.from(file);
  for (let at = copy.indexOf('ispe', 0, 'latin1'); at > 0; at = copy.indexOf('ispe', at + 4, 'latin1')) {
    copy.writeUInt32BE(60000, at + 8);
    copy.writeUInt32BE(60000, at + 12);
  }
  return copy;
}

/** Pixel and decompression bombs, one or more per accepted image-only format. */
export async function bombs(): Promise<HostileFile[]> {
  return [
    // A header that claims 3.6 gigapixels over a tiny IDAT.
    { name: 'header-60000.png', bytes: png(60000, 60000, zlib.deflateSync(Buffer.alloc(1024))) },
    // A real decompression bomb: 400 MB of zero pixels in ~400 KB (over the pixel limit).
    { name: 'zeros-20000.png', bytes: png(20000, 20000, await deflatedZeros(20000 * 20001)) },
    // Just under the pixel limit, so it is decoded: 99 MB of zero pixels in ~100 KB.
    { name: 'zeros-9950.png', bytes: png(9950, 9950, await deflatedZeros(9950 * 9951)) },
    { name: 'header-60000.jpg', bytes: jpegWithSize(fixture('images/ms_cards.jpg'), 60000, 60000) },
    { name: 'huge.webp', bytes: webpHuge(fixture('images/ms_cards.webp')) },
    { name: 'huge-lossless.webp', bytes: webpHuge(fixture('images/rs_sample1.webp')) },
    { name: 'huge.tiff', bytes: tiffHuge(fixture('images/rs_test.tiff')) },
    { name: 'huge.gif', bytes: gifHuge(fixture('images/rs_sample1.gif')) },
    { name: 'huge.avif', bytes: bmffHuge(fixture('images/rs_sample1.avif')) },
    { name: 'huge.heic', bytes: bmffHuge(fixture('images/rs_sample1.heic')) },
  ];
}

/** `bytes` cut at `count` points spread over the file, plus a few in its first bytes. */
export function truncations(bytes: Uint8Array, count: number): { at: number; bytes: Uint8Array }[] {
  const points = new Set([1, 2, 3, 4, 11, 100]);
  for (let i = 1; i <= count; i++) points.add(Math.floor((bytes.length * i) / (count + 1)));
  return [...points].filter((at) => at < bytes.length).map((at) => ({ at, bytes: bytes.subarray(0, at) }));
}

/** The JPEG's APP11 (JUMBF) segments: [start of the segment's data, end]. */
export function app11Ranges(jpeg: Uint8Array): [number, number][] {
  const view = Buffer.from(jpeg);
  const ranges: [number, number][] = [];
  for (let i = 2; i + 4 < view.length && view[i] === 0xff; ) {
    const marker = view[i + 1]!;
    if (marker === 0xda || marker === 0xd9) break;
    const length = view.readUInt16BE(i + 2);
    if (marker === 0xeb) ranges.push([i + 4, i + 2 + length]);
    i += 2 + length;
  }
  return ranges;
}

/**
 * Byte flips inside the C2PA manifest store: box lengths and types (the first 32 bytes of each
 * APP11 segment), then bytes spread over the claim, signature and assertions.
 */
export function c2paFlips(jpeg: Uint8Array, spread: number): { at: number; bytes: Uint8Array }[] {
  const ranges = app11Ranges(jpeg);
  if (ranges.length === 0) throw new Error('no APP11 segment');
  const points: number[] = [];
  for (const [start] of ranges.slice(0, 2)) for (let k = 0; k < 32; k += 4) points.push(start + k);
  const [first, last] = [ranges[0]![0], ranges.at(-1)![1]];
  for (let i = 1; i <= spread; i++) points.push(first + Math.floor(((last - first) * i) / (spread + 1)));
  return points.map((at) => {
    const copy = Buffer.from(jpeg);
    copy[at] = copy[at]! ^ 0xff;
    return { at, bytes: copy };
  });
}

/**
 * A RAW's IFD0 entries made hostile, one entry at a time: its count and value/offset set to the
 * largest values (an offset past the end, a count of four billion), its type to an invalid one.
 */
export function ifdFlips(raw: Uint8Array, entries: number): { what: string; bytes: Uint8Array }[] {
  const out: { what: string; bytes: Uint8Array }[] = [];
  for (const entry of ifd0Entries(raw).slice(0, entries)) {
    const count = Buffer.from(raw);
    count.writeUInt32BE(0xffffffff, entry.at + 4);
    count.writeUInt32BE(0xfffffff0, entry.at + 8);
    out.push({ what: `tag 0x${entry.tag.toString(16)} count and offset at their maximum`, bytes: count });
    const type = Buffer.from(raw);
    type.writeUInt16BE(0xffff, entry.at + 2);
    out.push({ what: `tag 0x${entry.tag.toString(16)} of type 0xffff`, bytes: type });
  }
  const loop = Buffer.from(raw);
  // IFD0's next-IFD pointer pointing back at IFD0: a reader that follows chains must notice the loop.
  const little = loop[0] === 0x49;
  const ifd = little ? loop.readUInt32LE(4) : loop.readUInt32BE(4);
  const n = little ? loop.readUInt16LE(ifd) : loop.readUInt16BE(ifd);
  little ? loop.writeUInt32LE(ifd, ifd + 2 + n * 12) : loop.writeUInt32BE(ifd, ifd + 2 + n * 12);
  out.push({ what: 'IFD0 chained to itself', bytes: loop });
  return out;
}

/** A stored ZIP archive holding one file: the tail of a JPEG+ZIP polyglot. */
export function zipOf(name: string, content: string): Uint8Array {
  const data = Buffer.from(content);
  const fileName = Buffer.from(name);
  const crc = crc32(data);
  const local = Buffer.alloc(30);
  local.writeUInt32LE(0x04034b50, 0);
  local.writeUInt16LE(20, 4);
  local.writeUInt32LE(crc, 14);
  local.writeUInt32LE(data.length, 18);
  local.writeUInt32LE(data.length, 22);
  local.writeUInt16LE(fileName.length, 26);
  const central = Buffer.alloc(46);
  central.writeUInt32LE(0x02014b50, 0);
  central.writeUInt16LE(20, 4);
  central.writeUInt16LE(20, 6);
  central.writeUInt32LE(crc, 16);
  central.writeUInt32LE(data.length, 20);
  central.writeUInt32LE(data.length, 24);
  central.writeUInt16LE(fileName.length, 28);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(1, 8);
  end.writeUInt16LE(1, 10);
  end.writeUInt32LE(46 + fileName.length, 12);
  end.writeUInt32LE(30 + fileName.length + data.length, 16);
  return concat(local, fileName, data, central, fileName, end);
}

export const html = '<!doctype html><html><body><script>alert(document.domain)</script></body></html>';

/** A JPEG with HTML inside a comment (COM) segment right after SOI. */
export function jpegWithHtmlComment(jpeg: Uint8Array): Uint8Array {
  const text = Buffer.from(html);
  const segment = Buffer.alloc(4);
  segment.writeUInt16BE(0xfffe, 0);
  segment.writeUInt16BE(text.length + 2, 2);
  return concat(jpeg.subarray(0, 2), segment, text, jpeg.subarray(2));
}

/** `size` bytes that start as a JPEG: the limit is met by size, not by a parse. */
export function paddedJpeg(jpeg: Uint8Array, size: number): Uint8Array {
  const out = new Uint8Array(size);
  out.set(jpeg.subarray(0, Math.min(jpeg.length, size)));
  out.set(noise(Math.max(0, size - jpeg.length)), Math.min(jpeg.length, size));
  return out;
}

/**
 * Byte sequences that are not UTF-8 (issue 36 item 9), each refused wherever text arrives, never
 * stored with U+FFFD in its place: stray bytes, an overlong "/", a CESU-8 surrogate, raw Latin-1
 * "é", a sequence cut short, a code point above U+10FFFF.
 */
export const INVALID_UTF8: Record<string, number[]> = {
  stray: [0xff, 0xfe],
  overlong: [0xc0, 0xaf],
  cesu8: [0xed, 0xa0, 0x80],
  latin1: [0xe9],
  truncated: [0xe2, 0x82],
  'above U+10FFFF': [0xf4, 0x90, 0x80, 0x80],
};

/** `json` (a JSON text holding `marker` once, inside a string) as bytes, the marker replaced by `bytes`. */
export function withRawBytes(json: string, marker: string, bytes: number[]): Uint8Array<ArrayBuffer> {
  const at = json.indexOf(marker);
  if (at === -1) throw new Error('the marker is not in the JSON');
  return new Uint8Array(concat(Buffer.from(json.slice(0, at)), Uint8Array.from(bytes), Buffer.from(json.slice(at + marker.length))));
}
