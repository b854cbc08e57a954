/**
 * A minimal DNG writer for the tests: it puts a CFA mosaic (real sensor data taken from a
 * fixture, or a forgery derived from it) into the container variants real cameras and
 * converters write, so RAW integrity can be calibrated beyond the few files in the fixtures.
 *
 * Variants: uncompressed strips or tiles, lossless-JPEG tiles (ITU T.81 process 14, predictor 1,
 * one component per tile row, as CinemaDNG writers do), 16-bit samples or 12/14-bit packed
 * samples, a LinearizationTable, a scalar or 2x2 BlackLevel, any WhiteLevel, ISO and exposure in an Exif IFD.
 * Nothing here is product code: the product only reads DNGs.
 */

export interface DngOptions {
  width: number;
  height: number;
  /** Stored values, one per pixel (already encoded when a linearization table is given). */
  samples: Uint16Array;
  /** 2x2 pattern, e.g. 'RGGB'. */
  cfaPattern: string;
  /** Bits per stored sample: 16 (default), or 12/14 packed MSB-first (uncompressed only). */
  bitsPerSample?: 12 | 14 | 16;
  compression?: 'none' | 'lossless-jpeg';
  /** Tile side (multiple of 16); default: strips for 'none', 256 for lossless JPEG. */
  tileSize?: number;
  /** DNG LinearizationTable: stored value -> linear value. */
  linearizationTable?: Uint16Array;
  /** One value, or four for a 2x2 BlackLevelRepeatDim (row by row). */
  blackLevel?: number | [number, number, number, number];
  whiteLevel: number;
  make?: string;
  model?: string;
  iso?: number;
  /**
   * Exposure fields of the Exif IFD, written as given (0 included: some writers record zeros for
   * "unknown"): ExposureTime, FNumber, FocalLength and their APEX twins ShutterSpeedValue and
   * ApertureValue.
   */
  exposure?: { exposureTime?: number; fNumber?: number; focalLength?: number; shutterSpeedValue?: number; apertureValue?: number };
  /** Camera-neutral white balance (AsShotNeutral), R G B. */
  asShotNeutral?: [number, number, number];
  /** XYZ -> camera (ColorMatrix1), row-major 3x3. */
  colorMatrix?: number[];
  software?: string;
}

const SHORT = 3;
const LONG = 4;
const RATIONAL = 5;
const ASCII = 2;
const BYTE = 1;
const SRATIONAL = 10;
const UNDEFINED = 7;

interface Entry {
  tag: number;
  type: number;
  values: number[] | string;
}

const colourIndex: Record<string, number> = { R: 0, G: 1, B: 2 };

/** Writes the DNG; little-endian, raw image in IFD0 (as GoPro's SDK writes it). */
export function writeDng(o: DngOptions): Uint8Array {
  const bits = o.bitsPerSample ?? 16;
  const compression = o.compression ?? 'none';
  if (compression === 'lossless-jpeg' && bits !== 16) throw new Error('lossless JPEG tiles are written from 16-bit samples');
  if (o.samples.length !== o.width * o.height) throw new Error(`samples: expected ${o.width * o.height}, got ${o.samples.length}`);
  const tile = o.tileSize ?? (compression === 'lossless-jpeg' ? 256 : 0);
  if (tile % 16 !== 0) throw new Error(`tileSize must be a multiple of 16, got ${tile}`);

  const blocks: Uint8Array[] = [];
  if (tile > 0) {
    const precision = Math.max(1, Math.ceil(Math.log2(maxOf(o.samples) + 1)));
    for (let ty = 0; ty < o.height; ty += tile) {
      for (let tx = 0; tx < o.width; tx += tile) {
        const values = tileOf(o.samples, o.width, o.height, tx, ty, tile);
        blocks.push(compression === 'lossless-jpeg' ? losslessJpeg(values, tile, tile, Math.max(precision, 2)) : packSamples(values, bits));
      }
    }
  } else {
    blocks.push(packSamples(o.samples, bits));
  }

  const black = o.blackLevel ?? 0;
  const blackValues = typeof black === 'number' ? [black] : black;
  const entries: Entry[] = [
    { tag: 254, type: LONG, values: [0] },
    { tag: 256, type: LONG, values: [o.width] },
    { tag: 257, type: LONG, values: [o.height] },
    { tag: 258, type: SHORT, values: [bits] },
    { tag: 259, type: SHORT, values: [compression === 'lossless-jpeg' ? 7 : 1] },
    { tag: 262, type: SHORT, values: [32803] },
    { tag: 271, type: ASCII, values: o.make ?? 'Canon' },
    { tag: 272, type: ASCII, values: o.model ?? 'Canon EOS 30D' },
    { tag: 274, type: SHORT, values: [1] },
    { tag: 277, type: SHORT, values: [1] },
    { tag: 284, type: SHORT, values: [1] },
    { tag: 305, type: ASCII, values: o.software ?? 'photoverify test DNG writer' },
    { tag: 33421, type: SHORT, values: [2, 2] },
    { tag: 33422, type: BYTE, values: [...o.cfaPattern].map((c) => colourIndex[c] ?? 1) },
    { tag: 50706, type: BYTE, values: [1, 4, 0, 0] },
    { tag: 50707, type: BYTE, values: [1, 1, 0, 0] },
    { tag: 50708, type: ASCII, values: `${o.make ?? 'Canon'} ${o.model ?? 'Canon EOS 30D'}` },
    { tag: 50713, type: SHORT, values: blackValues.length === 4 ? [2, 2] : [1, 1] },
    { tag: 50714, type: LONG, values: blackValues },
    { tag: 50717, type: LONG, values: [o.whiteLevel] },
    { tag: 50721, type: SRATIONAL, values: o.colorMatrix ?? [0.6257, -0.0303, -0.1, -0.4882, 1.2549, 0.2521, -0.0823, 0.1738, 0.5903] },
    { tag: 50728, type: RATIONAL, values: o.asShotNeutral ?? [0.5, 1, 0.65] },
    { tag: 50778, type: SHORT, values: [21] },
  ];
  if (o.linearizationTable) entries.push({ tag: 50712, type: SHORT, values: [...o.linearizationTable] });
  if (tile > 0) {
    entries.push({ tag: 322, type: LONG, values: [tile] }, { tag: 323, type: LONG, values: [tile] });
    entries.push({ tag: 324, type: LONG, values: blocks.map(() => 0) }, { tag: 325, type: LONG, values: blocks.map((b) => b.length) });
  } else {
    entries.push({ tag: 273, type: LONG, values: [0] }, { tag: 278, type: LONG, values: [o.height] }, { tag: 279, type: LONG, values: [blocks[0]!.length] });
  }
  const exif: Entry[] = [];
  if (o.iso !== undefined) exif.push({ tag: 34855, type: SHORT, values: [o.iso] });
  const x = o.exposure ?? {};
  if (x.exposureTime !== undefined) exif.push({ tag: 33434, type: RATIONAL, values: [x.exposureTime] });
  if (x.fNumber !== undefined) exif.push({ tag: 33437, type: RATIONAL, values: [x.fNumber] });
  if (x.shutterSpeedValue !== undefined) exif.push({ tag: 37377, type: SRATIONAL, values: [x.shutterSpeedValue] });
  if (x.apertureValue !== undefined) exif.push({ tag: 37378, type: RATIONAL, values: [x.apertureValue] });
  if (x.focalLength !== undefined) exif.push({ tag: 37386, type: RATIONAL, values: [x.focalLength] });
  if (exif.length > 0) entries.push({ tag: 34665, type: LONG, values: [0] });
  return assemble(entries, exif, blocks);
}

function maxOf(a: Uint16Array): number {
  let m = 0;
  for (const v of a) if (v > m) m = v;
  return m;
}

/** A tile, padded by repeating the last column/row (the DNG spec leaves padding to the writer). */
function tileOf(s: Uint16Array, width: number, height: number, tx: number, ty: number, tile: number): Uint16Array {
  const out = new Uint16Array(tile * tile);
  for (let y = 0; y < tile; y++) {
    const sy = Math.min(height - 1, ty + y);
    for (let x = 0; x < tile; x++) out[y * tile + x] = s[sy * width + Math.min(width - 1, tx + x)]!;
  }
  return out;
}

/** 16-bit little-endian samples, or 12/14-bit samples packed MSB-first (DNG bit packing). */
function packSamples(values: Uint16Array, bits: number): Uint8Array {
  if (bits === 16) {
    const out = new Uint8Array(values.length * 2);
    for (let i = 0; i < values.length; i++) {
      out[2 * i] = values[i]! & 0xff;
      out[2 * i + 1] = values[i]! >> 8;
    }
    return out;
  }
  const out = new Uint8Array(Math.ceil((values.length * bits) / 8));
  let acc = 0;
  let held = 0;
  let o = 0;
  for (const v of values) {
    if (v >> bits) throw new Error(`sample ${v} does not fit in ${bits} bits`);
    acc = (acc << bits) | v;
    held += bits;
    while (held >= 8) {
      held -= 8;
      out[o++] = (acc >> held) & 0xff;
    }
    acc &= (1 << held) - 1;
  }
  if (held > 0) out[o] = (acc << (8 - held)) & 0xff;
  return out;
}

const typeSize: Record<number, number> = { [BYTE]: 1, [ASCII]: 1, [SHORT]: 2, [LONG]: 4, [RATIONAL]: 8, [SRATIONAL]: 8, [UNDEFINED]: 1 };

function assemble(entries: Entry[], exif: Entry[], blocks: Uint8Array[]): Uint8Array {
  entries.sort((a, b) => a.tag - b.tag);
  exif.sort((a, b) => a.tag - b.tag);
  const countOf = (e: Entry): number => (typeof e.values === 'string' ? e.values.length + 1 : e.values.length);
  const ifdSize = (list: Entry[]): number => 2 + list.length * 12 + 4;
  const extraSize = (list: Entry[]): number =>
    list.reduce((s, e) => {
      const size = countOf(e) * typeSize[e.type]!;
      return s + (size > 4 ? size + (size & 1) : 0);
    }, 0);
  const ifd0At = 8;
  const exifAt = ifd0At + ifdSize(entries) + extraSize(entries);
  let dataAt = exifAt + (exif.length ? ifdSize(exif) + extraSize(exif) : 0);
  dataAt += dataAt & 1;
  const blockOffsets: number[] = [];
  let total = dataAt;
  for (const b of blocks) {
    blockOffsets.push(total);
    total += b.length + (b.length & 1);
  }
  const out = new Uint8Array(total);
  const view = new DataView(out.buffer);
  out.set([0x49, 0x49, 42, 0]);
  view.setUint32(4, ifd0At, true);
  for (const e of entries) {
    if (e.tag === 273 || e.tag === 324) e.values = blockOffsets;
    if (e.tag === 34665) e.values = [exifAt];
  }
  writeIfd(view, out, ifd0At, entries);
  if (exif.length) writeIfd(view, out, exifAt, exif);
  blocks.forEach((b, i) => out.set(b, blockOffsets[i]!));
  return out;
}

function writeIfd(view: DataView, out: Uint8Array, at: number, list: Entry[]): void {
  view.setUint16(at, list.length, true);
  let extra = at + 2 + list.length * 12 + 4;
  list.forEach((e, i) => {
    const p = at + 2 + i * 12;
    const count = typeof e.values === 'string' ? e.values.length + 1 : e.values.length;
    const size = count * typeSize[e.type]!;
    view.setUint16(p, e.tag, true);
    view.setUint16(p + 2, e.type, true);
    view.setUint32(p + 4, count, true);
    let w = p + 8;
    if (size > 4) {
      view.setUint32(p + 8, extra, true);
      w = extra;
      extra += size + (size & 1);
    }
    if (typeof e.values === 'string') {
      for (let k = 0; k < e.values.length; k++) out[w + k] = e.values.charCodeAt(k);
      return;
    }
    e.values.forEach((v, k) => {
      if (e.type === BYTE || e.type === UNDEFINED) out[w + k] = v;
      else if (e.type === SHORT) view.setUint16(w + 2 * k, v, true);
      else if (e.type === LONG) view.setUint32(w + 4 * k, v, true);
      else {
        const den = 1_000_000;
        if (e.type === RATIONAL) view.setUint32(w + 8 * k, Math.round(v * den), true);
        else view.setInt32(w + 8 * k, Math.round(v * den), true);
        view.setUint32(w + 8 * k + 4, den, true);
      }
    });
  });
  view.setUint32(at + 2 + list.length * 12, 0, true);
}

// ---------------------------------------------------------------------------------------------
// Lossless JPEG (SOF3), one component, predictor 1 (left; first column from above, first
// sample 2^(P-1)), one Huffman table built from the tile's own difference categories.

class BitWriter {
  private bytes = new Uint8Array(1 << 16);
  private length = 0;
  private acc = 0;
  private held = 0;
  put(code: number, length: number): void {
    for (let i = length - 1; i >= 0; i--) {
      this.acc = (this.acc << 1) | ((code >> i) & 1);
      if (++this.held === 8) this.flushByte();
    }
  }
  private flushByte(): void {
    if (this.length + 2 > this.bytes.length) {
      const grown = new Uint8Array(this.bytes.length * 2);
      grown.set(this.bytes);
      this.bytes = grown;
    }
    this.bytes[this.length++] = this.acc;
    if (this.acc === 0xff) this.bytes[this.length++] = 0; // byte stuffing
    this.acc = 0;
    this.held = 0;
  }
  finish(): Uint8Array {
    while (this.held !== 0) this.put(1, 1); // pad with 1-bits
    return this.bytes.subarray(0, this.length);
  }
}

function category(diff: number): number {
  let a = Math.abs(diff);
  let n = 0;
  while (a) {
    n++;
    a >>= 1;
  }
  return n;
}

/** Code lengths (max 16) for symbols 0..16 by the procedure of ITU T.81 Annex K.2/K.3. */
function huffmanLengths(freq: number[]): number[] {
  const f = [...freq, 1]; // reserved symbol: no code may be all ones
  const n = f.length;
  const codesize = new Array<number>(n).fill(0);
  const others = new Array<number>(n).fill(-1);
  const live = f.map((v) => v);
  for (;;) {
    let v1 = -1;
    let v2 = -1;
    for (let i = 0; i < n; i++) if (live[i]! > 0 && (v1 < 0 || live[i]! <= live[v1]!)) v1 = i;
    for (let i = 0; i < n; i++) if (live[i]! > 0 && i !== v1 && (v2 < 0 || live[i]! <= live[v2]!)) v2 = i;
    if (v2 < 0) break;
    live[v1]! += live[v2]!;
    live[v2] = 0;
    codesize[v1]!++;
    let k = v1;
    while (others[k]! >= 0) {
      k = others[k]!;
      codesize[k]!++;
    }
    others[k] = v2;
    codesize[v2]!++;
    k = v2;
    while (others[k]! >= 0) {
      k = others[k]!;
      codesize[k]!++;
    }
  }
  const bits = new Array<number>(33).fill(0);
  for (const s of codesize) if (s > 0) bits[s]!++;
  for (let i = 32; i > 16; i--) {
    while (bits[i]! > 0) {
      let j = i - 2;
      while (bits[j] === 0) j--;
      bits[i]! -= 2;
      bits[i - 1]!++;
      bits[j + 1]! += 2;
      bits[j]!--;
    }
  }
  let i = 16;
  while (bits[i] === 0) i--;
  bits[i]!--; // drop the reserved symbol
  // Assign lengths to symbols in order of decreasing frequency.
  const order = freq.map((v, s) => ({ v, s })).filter((x) => x.v > 0).sort((a, b) => b.v - a.v || a.s - b.s);
  const lengths = new Array<number>(freq.length).fill(0);
  let len = 1;
  for (const { s } of order) {
    while (bits[len] === 0) len++;
    lengths[s] = len;
    bits[len]!--;
  }
  return lengths;
}

function losslessJpeg(values: Uint16Array, width: number, height: number, precision: number): Uint8Array {
  const wrap = precision === 16;
  const diffs = new Int32Array(values.length);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const i = y * width + x;
      const pred = x > 0 ? values[i - 1]! : y > 0 ? values[i - width]! : 1 << (precision - 1);
      let d = values[i]! - pred;
      if (wrap) d = ((d + 32768) & 0xffff) - 32768;
      diffs[i] = d;
    }
  }
  const freq = new Array<number>(17).fill(0);
  for (const d of diffs) freq[category(d)]!++;
  const lengths = huffmanLengths(freq);
  // Canonical codes: by length, then symbol.
  const symbols = lengths.map((l, s) => ({ l, s })).filter((x) => x.l > 0).sort((a, b) => a.l - b.l || a.s - b.s);
  const codes = new Array<number>(17).fill(0);
  let code = 0;
  let len = symbols[0]?.l ?? 1;
  for (const { l, s } of symbols) {
    code <<= l - len;
    len = l;
    codes[s] = code++;
  }
  const bw = new BitWriter();
  for (const d of diffs) {
    const c = category(d);
    bw.put(codes[c]!, lengths[c]!);
    if (c > 0 && c < 16) bw.put(d < 0 ? d + (1 << c) - 1 : d, c);
  }
  const entropy = bw.finish();
  const counts = new Array<number>(16).fill(0);
  for (const { l } of symbols) counts[l - 1]!++;
  const head: number[] = [0xff, 0xd8];
  head.push(0xff, 0xc4, ...u16(2 + 1 + 16 + symbols.length), 0x00, ...counts, ...symbols.map((x) => x.s));
  head.push(0xff, 0xc3, ...u16(8 + 3), precision, ...u16(height), ...u16(width), 1, 1, 0x11, 0);
  head.push(0xff, 0xda, ...u16(6 + 2), 1, 1, 0x00, 1, 0, 0);
  const out = new Uint8Array(head.length + entropy.length + 2);
  out.set(head);
  out.set(entropy, head.length);
  out.set([0xff, 0xd9], head.length + entropy.length);
  return out;
}

function u16(v: number): [number, number] {
  return [(v >> 8) & 0xff, v & 0xff];
}
