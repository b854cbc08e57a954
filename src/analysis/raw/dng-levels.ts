/**
 * How a DNG encodes its sensor values: bit depth, LinearizationTable, black level (scalar, per
 * CFA position, per row/column) and white level, read from the sensor image's directory.
 *
 * LibRaw applies the LinearizationTable while unpacking (verified with test DNGs: uncompressed,
 * packed 12/14-bit and lossless-JPEG tiles all come back as table[stored]), so the mosaic it
 * returns is linear; should a decoder not do so, ensureLinearised applies the table here. It does not export a 2x2 BlackLevel pattern: its `black` then reads 0
 * (also verified), which would put every sample a pedestal above the declared black. The
 * pattern is therefore taken from the tags here and handed to the analyses as `channelBlack`.
 */
import { entryNumbers, readTiff, tagNumber, type TiffFile, type TiffIfd } from './tiff.js';

const LinearizationTable = 50712;
const BlackLevelRepeatDim = 50713;
const BlackLevel = 50714;
const BlackLevelDeltaH = 50715;
const BlackLevelDeltaV = 50716;
const WhiteLevel = 50717;
const BitsPerSample = 258;

export interface DngLevels {
  bitsPerSample?: number;
  /** Black level per position of the repeat pattern, row by row (DNG order: from the active area's origin). */
  blackLevel?: number[];
  blackRepeat?: [number, number];
  /** Mean of BlackLevelDeltaH / DeltaV when present (per-column / per-row offsets). */
  blackDeltaH?: { count: number; mean: number };
  blackDeltaV?: { count: number; mean: number };
  whiteLevel?: number[];
  linearizationTable?: { entries: number; first: number; last: number; max: number; monotonic: boolean };
}

function deltaSummary(bytes: Uint8Array, tiff: TiffFile, ifd: TiffIfd, tag: number): { count: number; mean: number } | undefined {
  const entry = ifd.entries.get(tag);
  if (!entry) return undefined;
  const values = entryNumbers(bytes, tiff.littleEndian, entry);
  if (values.length === 0) return undefined;
  return { count: values.length, mean: values.reduce((a, b) => a + b, 0) / values.length };
}

/** The level tags of a DNG's sensor directory; undefined when it has none. */
export function readDngLevels(bytes: Uint8Array, tiff: TiffFile, ifd: TiffIfd): DngLevels | undefined {
  const levels: DngLevels = {};
  const bits = tagNumber(ifd, BitsPerSample);
  if (bits !== undefined) levels.bitsPerSample = bits;
  const black = ifd.entries.get(BlackLevel);
  if (black) {
    levels.blackLevel = entryNumbers(bytes, tiff.littleEndian, black, 64);
    const repeat = ifd.entries.get(BlackLevelRepeatDim)?.values;
    levels.blackRepeat = repeat && repeat.length >= 2 ? [repeat[0]!, repeat[1]!] : [1, 1];
  }
  const deltaH = deltaSummary(bytes, tiff, ifd, BlackLevelDeltaH);
  if (deltaH) levels.blackDeltaH = deltaH;
  const deltaV = deltaSummary(bytes, tiff, ifd, BlackLevelDeltaV);
  if (deltaV) levels.blackDeltaV = deltaV;
  const white = ifd.entries.get(WhiteLevel);
  if (white) levels.whiteLevel = white.values.slice(0, 4);
  const table = ifd.entries.get(LinearizationTable);
  if (table) {
    const values = entryNumbers(bytes, tiff.littleEndian, table);
    if (values.length > 0) {
      let monotonic = true;
      for (let i = 1; i < values.length; i++) if (values[i]! < values[i - 1]!) monotonic = false;
      levels.linearizationTable = { entries: values.length, first: values[0]!, last: values.at(-1)!, max: Math.max(...values), monotonic };
    }
  }
  return Object.keys(levels).length > 0 ? levels : undefined;
}

/**
 * Black level of each 2x2 CFA position of a mosaic whose origin is (x, y) in the active area,
 * from a DNG BlackLevel pattern; undefined when the pattern is uniform (LibRaw's `black` is then
 * right, deltas included, as in dcraw) or not a 1x1/2x2 repeat. Mean row/column deltas are added.
 */
export function channelBlackFromDng(levels: DngLevels | undefined, x: number, y: number): [number, number, number, number] | undefined {
  const values = levels?.blackLevel;
  const [rows, cols] = levels?.blackRepeat ?? [1, 1];
  if (!values || rows < 1 || cols < 1 || rows > 2 || cols > 2 || values.length < rows * cols) return undefined;
  const shift = (levels!.blackDeltaH?.mean ?? 0) + (levels!.blackDeltaV?.mean ?? 0);
  const at = (i: number): number => values[((y + (i >> 1)) % rows) * cols + ((x + (i & 1)) % cols)]! + shift;
  const out: [number, number, number, number] = [at(0), at(1), at(2), at(3)];
  return out.every((v) => v === out[0]) ? undefined : out;
}

interface LevelledMosaic {
  blackLevel: number;
  channelBlack?: [number, number, number, number];
  container: Record<string, unknown>;
}

/** Sets `channelBlack` (and `blackLevel` to their mean) from a non-uniform DNG BlackLevel pattern. */
export function withDngBlackPattern<T extends LevelledMosaic>(sensor: T, levels: DngLevels | undefined): T {
  const crop = sensor.container.crop as { x: number; y: number } | undefined;
  const channelBlack = channelBlackFromDng(levels, crop?.x ?? 0, crop?.y ?? 0);
  if (!channelBlack) return sensor;
  return {
    ...sensor,
    channelBlack,
    blackLevel: channelBlack.reduce((a, b) => a + b, 0) / 4,
    container: { ...sensor.container, blackLevelSource: 'DNG BlackLevel pattern (LibRaw reports its common part only)', libRawBlack: sensor.blackLevel },
  };
}

/** The LinearizationTable of a DNG's sensor directory (at most 65536 entries), if it has one. */
export function linearizationTableOf(bytes: Uint8Array, tiff: TiffFile, ifd: TiffIfd): Uint16Array | undefined {
  const entry = ifd.entries.get(LinearizationTable);
  if (!entry) return undefined;
  const values = entryNumbers(bytes, tiff.littleEndian, entry);
  return values.length > 0 ? Uint16Array.from(values, (v) => Math.max(0, Math.min(65535, Math.round(v)))) : undefined;
}

export type Linearisation = 'none' | 'applied by the decoder' | 'applied here';

/**
 * Makes sure a DNG mosaic is linear. Once a LinearizationTable is applied every sample is one of
 * the table's outputs; LibRaw applies it while unpacking (verified), but a decoder that does not
 * leaves stored codes, some of which are not table outputs. Then the table is applied here (codes
 * past its end take its last value, as the DNG specification says).
 */
export function ensureLinearised(cfa: Uint16Array, table: Uint16Array | undefined): { cfa: Uint16Array; linearisation: Linearisation } {
  if (!table || table.length === 0) return { cfa, linearisation: 'none' };
  const outputs = new Uint8Array(65536);
  for (const v of table) outputs[v] = 1;
  let applied = true;
  for (let i = 0; i < cfa.length; i++) {
    if (!outputs[cfa[i]!]) {
      applied = false;
      break;
    }
  }
  if (applied) return { cfa, linearisation: 'applied by the decoder' };
  const last = table[table.length - 1]!;
  const out = new Uint16Array(cfa.length);
  for (let i = 0; i < cfa.length; i++) out[i] = cfa[i]! < table.length ? table[cfa[i]!]! : last;
  return { cfa: out, linearisation: 'applied here' };
}

interface DngMosaic extends LevelledMosaic {
  cfa: Uint16Array;
}

/**
 * A decoded DNG mosaic with its encoding undone: linearised (when the decoder did not apply the
 * LinearizationTable) and given its per-position black levels. Other formats pass unchanged.
 */
export function withDngEncoding<T extends DngMosaic>(sensor: T, bytes: Uint8Array, facts: Record<string, unknown>): T {
  const levels = facts.dngLevels as DngLevels | undefined;
  if (!levels) return sensor;
  let out: T = withDngBlackPattern(sensor, levels);
  if (levels.linearizationTable) {
    const tiff = readTiff(bytes);
    const ifd = tiff?.ifds.find((d) => d.path === facts.sensorDirectory);
    const table = tiff && ifd ? linearizationTableOf(bytes, tiff, ifd) : undefined;
    const { cfa, linearisation } = ensureLinearised(out.cfa, table);
    out = { ...out, cfa, container: { ...out.container, linearisation } };
  }
  return out;
}
