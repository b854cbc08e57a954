/**
 * End to end through analyzePair (issue 10, items 1-2): genuine RAWs outside the original
 * calibration are never `flagged` for their encoding, and a real edit in an export is flagged
 * for the edit, not for the RAW.
 *
 * - the GoPro HERO7 pair: GoPro's own SDK decoded the GPR to a DNG; the JPEG is a render by
 *   another RAW engine (LibRaw dcraw_emu), with and without a crop;
 * - the Canon 30D's real sensor data re-stored as the file of the issue (lossless-JPEG tiles, a
 *   LinearizationTable to 16 bits, WhiteLevel 65535) and square-root companded to 8 bits, paired
 *   with the camera's own JPEG, a 10 %-a-side crop halved, and an export with a pasted region.
 *
 * Sized by work (full frames, a few pipeline runs); no time assertions.
 */
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { analyzePair, type PairAnalysis } from '../../src/analysis/pipeline.js';
import { decodeRaw, shutdownRawDecoders } from '../../src/analysis/raw/index.js';
import { containerVariants, sourceOf, variantDng } from './raw/container-variants.js';
import { camera30d, encode, fixture } from './fixtures.js';

const slow = 600_000;
afterAll(() => shutdownRawDecoders());

const hero7 = { raw: 'pairs/gopro_hero7_dng/GOPR9231.dng', jpeg: 'pairs/gopro_hero7_dng/GOPR9231.dcraw-render.jpg' };

async function cropHalved(jpeg: Uint8Array): Promise<Uint8Array> {
  const { width = 0, height = 0 } = await sharp(jpeg).metadata();
  const left = Math.round(width * 0.1);
  const top = Math.round(height * 0.1);
  return encode(sharp(jpeg).extract({ left, top, width: width - 2 * left, height: height - 2 * top }).resize(Math.round((width - 2 * left) / 2)));
}

const integrityOf = (a: PairAnalysis) => a.results.find((r) => r.analysis === 'raw_integrity')!;

// Whole pair analyses: sized for a machine at load 10 on two cores, not by the one-minute default.
describe('GoPro HERO7 Black pair (GPR decoded by GoPro SDK, render by another RAW engine)', { timeout: 10 * 60_000 }, () => {
  it('the full render is never flagged: its sensor data is recognised', async () => {
    const a = await analyzePair({ raw: fixture(hero7.raw), image: fixture(hero7.jpeg) });
    expect(a.grade.assurance_level, a.grade.assurance_reason).not.toBe('flagged');
    expect(['verified', 'provisional']).toContain(a.grade.assurance_level);
    expect(integrityOf(a).result, String(integrityOf(a).details.summary)).not.toBe(false);
  }, slow);

  it('a crop of 10 per cent a side, halved, is never flagged', async () => {
    const a = await analyzePair({ raw: fixture(hero7.raw), image: await cropHalved(fixture(hero7.jpeg)) });
    expect(a.grade.assurance_level, a.grade.assurance_reason).not.toBe('flagged');
  }, slow);
});

describe('Canon 30D sensor data in the containers of issue 10, paired with the camera JPEG', { timeout: 10 * 60_000 }, () => {
  const variants = ['CinemaDNG: LinearizationTable to 16 bits, WhiteLevel 65535, lossless-JPEG tiles', 'square-root companded to 8 bits + LinearizationTable, lossless-JPEG'];
  const dngs = new Map<string, Uint8Array>();
  const jpeg = fixture(camera30d.jpeg);
  beforeAll(async () => {
    const outcome = await decodeRaw(fixture(camera30d.raw));
    if (outcome.kind !== 'decoded') throw new Error('30D did not decode');
    const src = sourceOf('Canon EOS 30D', outcome.raw);
    for (const name of variants) dngs.set(name, variantDng(src, containerVariants.find((v) => v.name === name)!));
  }, slow);

  it.each(variants)('%s: the camera JPEG and a crop of 10 per cent a side, halved, are never flagged', async (name) => {
    for (const image of [jpeg, await cropHalved(jpeg)]) {
      const a = await analyzePair({ raw: dngs.get(name)!, image });
      expect(a.grade.assurance_level, a.grade.assurance_reason).not.toBe('flagged');
      expect(integrityOf(a).result, String(integrityOf(a).details.summary)).not.toBe(false);
    }
  }, slow);

  it('a 200x200 region pasted into the export is flagged for the edit, not for the RAW', async () => {
    const patch = await sharp(fixture('images/mei_nikon-d70.jpg')).extract({ left: 1000, top: 700, width: 200, height: 200 }).toBuffer();
    const image = await encode(sharp(jpeg).composite([{ input: patch, left: 1100, top: 750 }]));
    const a = await analyzePair({ raw: dngs.get(variants[0]!)!, image });
    expect(a.grade.assurance_level).toBe('flagged');
    expect(a.grade.assurance_reason).not.toMatch(/sensor data/);
    expect(a.grade.assurance_reason).toMatch(/pixels/);
  }, slow);
});
