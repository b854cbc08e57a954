/**
 * The test DNG writer, read back by the product's decoder: proves the variants the integrity
 * calibration relies on are what they claim, and pins down what LibRaw does with a DNG's
 * encoding (it applies the LinearizationTable; it reports a 2x2 BlackLevel pattern as black 0,
 * which decodeRaw corrects from the tags).
 */
import { describe, expect, it } from 'vitest';
import { ensureLinearised } from '../../../src/analysis/raw/dng-levels.js';
import type { DecodedRaw } from '../../../src/analysis/types.js';
import type { DngOptions } from './dng-writer.js';
import { canon30dDngs } from './sensor-crop.js';

const W = 512;
const H = 384;
const dngs = canon30dDngs(W, H, { iso: 640 });
const roundTrip = dngs.decode;

function mismatches(raw: DecodedRaw, expected: (v: number) => number): number {
  let bad = 0;
  for (let i = 0; i < dngs.samples.length; i++) if (raw.cfa[i] !== expected(dngs.samples[i]!)) bad++;
  return bad;
}

const sqrt10 = (v: number): number => Math.round(Math.sqrt(v / 4095) * 1023);
const inverse10 = Uint16Array.from({ length: 1024 }, (_, c) => Math.round((c / 1023) ** 2 * 4095));
const times16 = Uint16Array.from({ length: 4096 }, (_, i) => i * 16);

describe('test DNGs read back through decodeRaw (LibRaw)', () => {
  it.each([
    ['uncompressed strips', {}, 1],
    ['uncompressed tiles', { tileSize: 128 }, 1],
    ['12-bit packed', { bitsPerSample: 12 }, 1],
    ['lossless-JPEG tiles', { compression: 'lossless-jpeg' }, 1],
    ['lossless-JPEG tiles, 16-bit values', { compression: 'lossless-jpeg' }, 16],
  ] as [string, Partial<DngOptions>, number][])('%s: every sample as written', async (_name, options, scale) => {
    const raw = await roundTrip({ ...options, samples: dngs.samples.map((v) => v * scale) });
    expect([raw.width, raw.height, raw.cfaPattern, raw.blackLevel, raw.whiteLevel, raw.metadata.iso]).toEqual([W, H, 'RGGB', 127, 4095, 640]);
    expect(mismatches(raw, (v) => v * scale)).toBe(0);
  }, 120_000);

  it('LibRaw applies the LinearizationTable (uncompressed and lossless-JPEG): the mosaic is linear', async () => {
    const stored = dngs.samples.map(sqrt10);
    const plain = await roundTrip({ samples: stored, linearizationTable: inverse10 });
    expect(mismatches(plain, (v) => inverse10[sqrt10(v)]!)).toBe(0);
    const tiled = await roundTrip({ samples: stored, linearizationTable: inverse10, compression: 'lossless-jpeg' });
    expect(mismatches(tiled, (v) => inverse10[sqrt10(v)]!)).toBe(0);
    const scaled = await roundTrip({ linearizationTable: times16, whiteLevel: 65535, blackLevel: 127 * 16, compression: 'lossless-jpeg' });
    expect(mismatches(scaled, (v) => v * 16)).toBe(0);
    expect(scaled.container.dngLevels).toMatchObject({ linearizationTable: { entries: 4096, first: 0, last: 65520, monotonic: true }, whiteLevel: [65535] });
    for (const raw of [plain, tiled, scaled]) expect(raw.container.linearisation).toBe('applied by the decoder');
  }, 120_000);

  it('a mosaic a decoder left in stored codes is linearised here (codes past the table take its last value)', () => {
    const table = Uint16Array.from([0, 16, 64, 144, 256]);
    expect(ensureLinearised(Uint16Array.from([0, 16, 144, 256]), table)).toEqual({ cfa: Uint16Array.from([0, 16, 144, 256]), linearisation: 'applied by the decoder' });
    expect(ensureLinearised(Uint16Array.from([0, 1, 3, 4, 9]), table)).toEqual({ cfa: Uint16Array.from([0, 16, 144, 256, 256]), linearisation: 'applied here' });
    expect(ensureLinearised(Uint16Array.from([5, 7]), undefined).linearisation).toBe('none');
  });

  it('a 2x2 BlackLevel pattern, which LibRaw reports as black 0, comes back per CFA position', async () => {
    const raw = await roundTrip({ blackLevel: [120, 125, 130, 135] });
    expect(raw.channelBlack).toEqual([120, 125, 130, 135]);
    expect(raw.blackLevel).toBe(127.5);
    expect(raw.container).toMatchObject({ libRawBlack: 0 });
  }, 120_000);
});
