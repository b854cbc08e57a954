/**
 * Minimal, bounds-checked TIFF structure reader: enough to tell RAW containers apart, find the
 * image that holds the sensor data and check that its bytes are inside the file. Never throws
 * on hostile input: out-of-range offsets end the walk instead.
 */

export interface TiffEntry {
  tag: number;
  type: number;
  count: number;
  /** Numeric values (first 64 at most), for SHORT/LONG/RATIONAL(as float)/BYTE types. */
  values: number[];
  /** ASCII value, for type 2. */
  text?: string;
  /** Where the value bytes start (inline or at an offset). */
  valueOffset: number;
}

export interface TiffIfd {
  /** Where this IFD was found, e.g. 'IFD0', 'IFD0.SubIFD1', 'IFD1'. */
  path: string;
  offset: number;
  entries: Map<number, TiffEntry>;
}

export interface TiffFile {
  littleEndian: boolean;
  ifds: TiffIfd[];
  /** Where directories the file points to would end, when the file does not contain them: truncation. */
  danglingEnds: number[];
}

export const Tag = {
  NewSubfileType: 254,
  ImageWidth: 256,
  ImageLength: 257,
  BitsPerSample: 258,
  Compression: 259,
  PhotometricInterpretation: 262,
  Make: 271,
  Model: 272,
  StripOffsets: 273,
  SamplesPerPixel: 277,
  StripByteCounts: 279,
  Software: 305,
  TileOffsets: 324,
  TileByteCounts: 325,
  SubIFDs: 330,
  ExifIFD: 34665,
  DNGVersion: 50706,
  PanasonicRawDataOffset: 280,
} as const;

const typeSizes: Record<number, number> = { 1: 1, 2: 1, 3: 2, 4: 4, 5: 8, 6: 1, 7: 1, 8: 2, 9: 4, 10: 8, 11: 4, 12: 8, 13: 4 };
const maxIfds = 64;
const maxEntriesPerIfd = 1000;

/** Parses a TIFF-structured buffer whose header starts at `base` (0 for plain TIFF). */
export function readTiff(bytes: Uint8Array, base = 0): TiffFile | null {
  if (bytes.length < base + 8) return null;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const order = String.fromCharCode(bytes[base]!, bytes[base + 1]!);
  if (order !== 'II' && order !== 'MM') return null;
  const le = order === 'II';
  const u16 = (o: number): number => view.getUint16(o, le);
  const u32 = (o: number): number => view.getUint32(o, le);
  const inside = (o: number, n: number): boolean => o >= 0 && o + n <= bytes.length;

  const ifds: TiffIfd[] = [];
  const danglingEnds: number[] = [];
  const seen = new Set<number>();
  const queue: { offset: number; path: string }[] = [{ offset: base + u32(base + 4), path: 'IFD0' }];
  let chainIndex = 0;

  while (queue.length > 0 && ifds.length < maxIfds) {
    const { offset, path } = queue.shift()!;
    if (seen.has(offset)) continue;
    seen.add(offset);
    if (!inside(offset, 2)) {
      danglingEnds.push(offset + 2);
      continue;
    }
    const count = u16(offset);
    if (count === 0 || count > maxEntriesPerIfd) continue;
    if (!inside(offset + 2, count * 12)) {
      danglingEnds.push(offset + 2 + count * 12 + 4);
      continue;
    }
    const entries = new Map<number, TiffEntry>();
    for (let i = 0; i < count; i++) {
      const e = offset + 2 + i * 12;
      const tag = u16(e);
      const type = u16(e + 2);
      const n = u32(e + 4);
      const size = (typeSizes[type] ?? 1) * n;
      const valueOffset = size <= 4 ? e + 8 : base + u32(e + 8);
      entries.set(tag, { tag, type, count: n, valueOffset, ...readValues(view, bytes, type, n, valueOffset, le) });
    }
    ifds.push({ path, offset, entries });
    for (const sub of entries.get(Tag.SubIFDs)?.values ?? []) {
      queue.push({ offset: base + sub, path: `${path}.SubIFD${queue.length}` });
    }
    if (path.startsWith('IFD') && !path.includes('.') && inside(offset + 2 + count * 12, 4)) {
      const next = u32(offset + 2 + count * 12);
      if (next !== 0) queue.push({ offset: base + next, path: `IFD${++chainIndex}` });
    }
  }
  return { littleEndian: le, ifds, danglingEnds };
}

function readValues(
  view: DataView,
  bytes: Uint8Array,
  type: number,
  count: number,
  at: number,
  le: boolean,
): { values: number[]; text?: string } {
  const size = typeSizes[type] ?? 1;
  const n = Math.min(count, 64);
  if (at < 0 || at + size * n > bytes.length) return { values: [] };
  if (type === 2) {
    const raw = bytes.subarray(at, at + Math.min(count, 256));
    const end = raw.indexOf(0);
    return { values: [], text: new TextDecoder('latin1').decode(end >= 0 ? raw.subarray(0, end) : raw).trim() };
  }
  const values: number[] = [];
  for (let i = 0; i < n; i++) {
    const o = at + i * size;
    switch (type) {
      case 1: case 6: case 7: values.push(bytes[o]!); break;
      case 3: values.push(view.getUint16(o, le)); break;
      case 8: values.push(view.getInt16(o, le)); break;
      case 4: case 13: values.push(view.getUint32(o, le)); break;
      case 9: values.push(view.getInt32(o, le)); break;
      case 5: values.push(view.getUint32(o, le) / (view.getUint32(o + 4, le) || 1)); break;
      case 10: values.push(view.getInt32(o, le) / (view.getInt32(o + 4, le) || 1)); break;
      default: break;
    }
  }
  return { values };
}

export function tagNumber(ifd: TiffIfd, tag: number): number | undefined {
  return ifd.entries.get(tag)?.values[0];
}

export function tagText(file: TiffFile, tag: number): string | undefined {
  for (const ifd of file.ifds) {
    const text = ifd.entries.get(tag)?.text;
    if (text) return text;
  }
  return undefined;
}

export interface ImageDataExtent {
  ifd: TiffIfd;
  width: number;
  height: number;
  compression: number | undefined;
  /** Sum of strip/tile byte counts the IFD declares. */
  declaredBytes: number;
  /** Largest offset+count of any strip/tile: the file must be at least this long. */
  endsAt: number;
  /** True when only a prefix of the offsets/counts arrays could be read (>64 strips). */
  partial: boolean;
}

/** The strips or tiles an IFD declares, with where they end. */
export function imageExtent(ifd: TiffIfd): ImageDataExtent | null {
  const offsets = ifd.entries.get(Tag.StripOffsets) ?? ifd.entries.get(Tag.TileOffsets);
  const counts = ifd.entries.get(Tag.StripByteCounts) ?? ifd.entries.get(Tag.TileByteCounts);
  const width = tagNumber(ifd, Tag.ImageWidth) ?? 0;
  const height = tagNumber(ifd, Tag.ImageLength) ?? 0;
  if (!offsets || !counts || offsets.values.length === 0) return null;
  let declaredBytes = 0;
  let endsAt = 0;
  const n = Math.min(offsets.values.length, counts.values.length);
  for (let i = 0; i < n; i++) {
    declaredBytes += counts.values[i]!;
    endsAt = Math.max(endsAt, offsets.values[i]! + counts.values[i]!);
  }
  return {
    ifd,
    width,
    height,
    compression: tagNumber(ifd, Tag.Compression),
    declaredBytes,
    endsAt,
    partial: offsets.count > n || counts.count > n,
  };
}

/**
 * All numeric values of an entry (TiffEntry.values keeps only the first 64), up to `limit`:
 * for long arrays such as a DNG LinearizationTable. Empty when the values lie outside the file.
 */
export function entryNumbers(bytes: Uint8Array, littleEndian: boolean, entry: TiffEntry, limit = 65536): number[] {
  const size = ({ 1: 1, 3: 2, 4: 4, 5: 8, 8: 2, 9: 4, 10: 8 } as Record<number, number>)[entry.type];
  const n = Math.min(entry.count, limit);
  if (!size || entry.valueOffset < 0 || entry.valueOffset + size * n > bytes.length) return [];
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const out: number[] = new Array(n);
  for (let i = 0; i < n; i++) {
    const o = entry.valueOffset + i * size;
    switch (entry.type) {
      case 1: out[i] = bytes[o]!; break;
      case 3: out[i] = view.getUint16(o, littleEndian); break;
      case 8: out[i] = view.getInt16(o, littleEndian); break;
      case 4: out[i] = view.getUint32(o, littleEndian); break;
      case 9: out[i] = view.getInt32(o, littleEndian); break;
      case 5: out[i] = view.getUint32(o, littleEndian) / (view.getUint32(o + 4, littleEndian) || 1); break;
      default: out[i] = view.getInt32(o, littleEndian) / (view.getInt32(o + 4, littleEndian) || 1); break;
    }
  }
  return out;
}
