/**
 * Container variants of real sensor data: the same photons, stored the ways other cameras and
 * writers store them (bit depth, black and white levels, linearisation and companding curves,
 * lossless-JPEG tiles). Each variant is a DNG written by dng-writer.ts from a mosaic decoded
 * from a fixture; the tests and the calibration run (calibrate.ts) decode it back through the
 * product's decodeRaw and judge it with raw_integrity.
 */
import { decodeRaw } from '../../../src/analysis/raw/index.js';
import { decodeSensorData, type SensorData } from '../../../src/analysis/raw/decode.js';
import type { DecodedRaw } from '../../../src/analysis/types.js';
import { type DngOptions, writeDng } from './dng-writer.js';
import { fixture } from './fixtures.js';

/** A real mosaic and what the camera declared about it. */
export interface GenuineSource {
  name: string;
  make: string;
  model: string;
  iso?: number;
  mosaic: Pick<SensorData, 'cfa' | 'width' | 'height' | 'cfaPattern' | 'blackLevel' | 'whiteLevel'>;
}

/** The real CFA data among the fixtures (SOURCES.md), with the crop the tests use (work-sized). */
export const genuineFiles = [
  { name: 'Canon EOS 30D CR2', file: 'pairs/canon_eos_30d_cr2/IMG_5952.CR2', crop: { x: 1200, y: 400, width: 1536, height: 1280 } },
  { name: 'GoPro HERO7 Black DNG (GPR decoded)', file: 'pairs/gopro_hero7_dng/GOPR9231.dng', crop: { x: 800, y: 0, width: 1536, height: 1536 } },
  { name: 'GoPro Fusion front DNG (GPR decoded)', file: 'raw/gopro_fusion_front_GPFR7066.dng', crop: { x: 800, y: 800, width: 1536, height: 1536 } },
  { name: 'Kodak DC50 KDC', file: 'raw/kodak_dc50.kdc', crop: undefined },
] as const;

export async function decodeFixture(file: string): Promise<SensorData> {
  const bytes = fixture(file);
  if (file.endsWith('.kdc')) {
    const outcome = await decodeSensorData(bytes, 'KDC');
    if (outcome.kind !== 'decoded') throw new Error(`${file} did not decode`);
    return outcome.sensor;
  }
  const outcome = await decodeRaw(bytes);
  if (outcome.kind !== 'decoded') throw new Error(`${file} did not decode`);
  return outcome.raw;
}

export function sourceOf(name: string, raw: SensorData): GenuineSource {
  return { name, make: raw.metadata.make ?? 'Unknown', model: raw.metadata.model ?? 'Unknown', iso: raw.metadata.iso, mosaic: raw };
}

/** An even-aligned crop, so the CFA pattern is unchanged. */
export function cropSource(src: GenuineSource, crop: { x: number; y: number; width: number; height: number } | undefined): GenuineSource {
  if (!crop) return src;
  const m = src.mosaic;
  const x0 = crop.x & ~1;
  const y0 = crop.y & ~1;
  const w = Math.min(crop.width, m.width - x0) & ~1;
  const h = Math.min(crop.height, m.height - y0) & ~1;
  const cfa = new Uint16Array(w * h);
  for (let y = 0; y < h; y++) cfa.set(m.cfa.subarray((y0 + y) * m.width + x0, (y0 + y) * m.width + x0 + w), y * w);
  return { ...src, mosaic: { ...m, cfa, width: w, height: h } };
}

export interface ContainerVariant {
  name: string;
  /** What a real writer does this way. */
  why: string;
  build(src: GenuineSource): Omit<DngOptions, 'width' | 'height' | 'cfaPattern'>;
}

const map = (a: Uint16Array, f: (v: number, i: number) => number): Uint16Array => {
  const out = new Uint16Array(a.length);
  for (let i = 0; i < a.length; i++) out[i] = Math.max(0, Math.min(65535, Math.round(f(a[i]!, i))));
  return out;
};

/** Bits the declared white level needs (12 for the 30D, 14 for the GoPros, 8..12 for the KDC). */
const bitsOf = (white: number): number => Math.ceil(Math.log2(white + 1));

/** Square-root companding of the full range to `bits` codes, and the table that undoes it. */
function sqrtCurve(white: number, bits: number): { encode: (v: number) => number; table: Uint16Array } {
  const top = 2 ** bits - 1;
  const table = new Uint16Array(top + 1);
  for (let c = 0; c <= top; c++) table[c] = Math.round((c / top) ** 2 * white);
  return { encode: (v) => Math.round(Math.sqrt(Math.min(v, white) / white) * top), table };
}

/** A log curve (GoPro Protune-like): code = log(1 + a v) / log(1 + a white), 10 bits. */
function logCurve(white: number, bits: number): { encode: (v: number) => number; table: Uint16Array } {
  const top = 2 ** bits - 1;
  const a = 64 / white;
  const table = new Uint16Array(top + 1);
  for (let c = 0; c <= top; c++) table[c] = Math.round((Math.exp((c / top) * Math.log(1 + a * white)) - 1) / a);
  return { encode: (v) => Math.round((Math.log(1 + a * Math.min(v, white)) / Math.log(1 + a * white)) * top), table };
}

const base = (src: GenuineSource) => ({ make: src.make, model: src.model, iso: src.iso, whiteLevel: src.mosaic.whiteLevel, blackLevel: src.mosaic.blackLevel });

export const containerVariants: ContainerVariant[] = [
  { name: 'uncompressed 16-bit', why: 'the plain DNG a converter writes', build: (src) => ({ ...base(src), samples: src.mosaic.cfa }) },
  {
    name: 'packed at the data bit depth',
    why: 'camera DNGs pack 12/14-bit samples',
    build: (src) => {
      const bits = bitsOf(src.mosaic.whiteLevel);
      return bits === 12 || bits === 14 ? { ...base(src), samples: src.mosaic.cfa, bitsPerSample: bits } : { ...base(src), samples: src.mosaic.cfa };
    },
  },
  { name: 'lossless-JPEG tiles', why: 'most camera DNGs', build: (src) => ({ ...base(src), samples: src.mosaic.cfa, compression: 'lossless-jpeg', tileSize: 256 }) },
  {
    name: 'scaled to 16 bits (x2^k), levels scaled',
    why: 'writers that normalise to 16 bits',
    build: (src) => {
      const k = 2 ** (16 - bitsOf(src.mosaic.whiteLevel));
      return { ...base(src), samples: map(src.mosaic.cfa, (v) => v * k), blackLevel: src.mosaic.blackLevel * k, whiteLevel: (src.mosaic.whiteLevel + 1) * k - 1 };
    },
  },
  {
    name: 'CinemaDNG: LinearizationTable to 16 bits, WhiteLevel 65535, lossless-JPEG tiles',
    why: 'the file of issue 10: 12-bit codes, a table mapping them to 16 bits',
    build: (src) => {
      const w = src.mosaic.whiteLevel;
      const table = new Uint16Array(w + 1);
      for (let i = 0; i <= w; i++) table[i] = Math.round((i * 65535) / w);
      return { ...base(src), samples: src.mosaic.cfa, linearizationTable: table, blackLevel: Math.round((src.mosaic.blackLevel * 65535) / w), whiteLevel: 65535, compression: 'lossless-jpeg', tileSize: 256 };
    },
  },
  {
    name: 'data bit depth, WhiteLevel 65535',
    why: 'white level declared for the container, not the sensor',
    build: (src) => ({ ...base(src), samples: src.mosaic.cfa, whiteLevel: 65535 }),
  },
  {
    name: 'black pedestal +256 (declared)',
    why: 'sensors with a higher black offset',
    build: (src) => ({ ...base(src), samples: map(src.mosaic.cfa, (v) => v + 256), blackLevel: src.mosaic.blackLevel + 256, whiteLevel: src.mosaic.whiteLevel + 256 }),
  },
  {
    name: 'per-channel black, 2x2 BlackLevel pattern',
    why: 'per-channel black levels (LibRaw reads them as 0)',
    build: (src) => {
      const ped = [240, 256, 250, 262];
      const w = src.mosaic.width;
      const b = src.mosaic.blackLevel;
      return {
        ...base(src),
        samples: map(src.mosaic.cfa, (v, i) => v + ped[(((Math.floor(i / w) & 1) << 1) | (i % w & 1))]!),
        blackLevel: ped.map((p) => b + p) as [number, number, number, number],
        whiteLevel: src.mosaic.whiteLevel + 262,
      };
    },
  },
  {
    name: 'black pedestal +64 not declared',
    why: 'a writer that drops the black level (black-level handling)',
    build: (src) => ({ ...base(src), samples: map(src.mosaic.cfa, (v) => v + 64), whiteLevel: src.mosaic.whiteLevel + 64 }),
  },
  {
    name: 'square-root companded to 10 bits + LinearizationTable',
    why: 'companding curves (Nikon/Sony style) undone by the table',
    build: (src) => {
      const curve = sqrtCurve(src.mosaic.whiteLevel, 10);
      return { ...base(src), samples: map(src.mosaic.cfa, curve.encode), linearizationTable: curve.table };
    },
  },
  {
    name: 'square-root companded to 8 bits + LinearizationTable, lossless-JPEG',
    why: 'coarse companding: quantisation steps up to 2x the noise',
    build: (src) => {
      const curve = sqrtCurve(src.mosaic.whiteLevel, 8);
      return { ...base(src), samples: map(src.mosaic.cfa, curve.encode), linearizationTable: curve.table, compression: 'lossless-jpeg', tileSize: 256 };
    },
  },
  {
    name: 'log companded to 10 bits + LinearizationTable',
    why: 'log curves (GoPro, cinema cameras)',
    build: (src) => {
      const curve = logCurve(src.mosaic.whiteLevel, 10);
      return { ...base(src), samples: map(src.mosaic.cfa, curve.encode), linearizationTable: curve.table };
    },
  },
  {
    name: 'square-root companded to 10 bits, no table',
    why: 'a curve the file does not declare: the values are not linear in light',
    build: (src) => {
      const curve = sqrtCurve(src.mosaic.whiteLevel, 10);
      return { ...base(src), samples: map(src.mosaic.cfa, curve.encode), blackLevel: curve.encode(src.mosaic.blackLevel), whiteLevel: 1023 };
    },
  },
  { name: 'no ISO recorded', why: 'writers that drop EXIF', build: (src) => ({ ...base(src), iso: undefined, samples: src.mosaic.cfa }) },
];

/** Writes the variant of `src` (optionally with a forged mosaic in place of the real one). */
export function variantDng(src: GenuineSource, variant: ContainerVariant, cfa?: Uint16Array): Uint8Array {
  const source = cfa ? { ...src, mosaic: { ...src.mosaic, cfa } } : src;
  return writeDng({ width: src.mosaic.width, height: src.mosaic.height, cfaPattern: src.mosaic.cfaPattern, ...variant.build(source) });
}

export async function decodeVariant(bytes: Uint8Array): Promise<DecodedRaw> {
  const outcome = await decodeRaw(bytes);
  if (outcome.kind !== 'decoded') throw new Error(`variant did not decode: ${outcome.variant}`);
  return outcome.raw;
}
