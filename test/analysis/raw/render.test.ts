import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeRaw, renderReference, shutdownRawDecoders } from '../../../src/analysis/raw/index.js';
import { orient } from '../../../src/analysis/raw/render.js';
import type { DecodedRaw, RgbImage } from '../../../src/analysis/types.js';
import { canon30d, canon30dJpeg, canon6dDng, fixture } from './fixtures.js';

afterAll(() => shutdownRawDecoders());

async function decoded(file: string): Promise<DecodedRaw> {
  const outcome = await decodeRaw(fixture(file));
  if (outcome.kind !== 'decoded') throw new Error(`${file} did not decode`);
  return outcome.raw;
}

/** Luminance at a fixed small size: the sanity comparison needs no registration for these same-framing pairs. */
async function luminance(image: RgbImage | Uint8Array, width: number, height: number): Promise<Float64Array> {
  const input = image instanceof Uint8Array ? sharp(image) : sharp(image.data, { raw: { width: image.width, height: image.height, channels: 3 } });
  const data = await input.resize(width, height, { fit: 'fill' }).greyscale().raw().toBuffer();
  return Float64Array.from(data);
}

function correlation(a: Float64Array, b: Float64Array): number {
  const n = a.length;
  const ma = a.reduce((s, v) => s + v, 0) / n;
  const mb = b.reduce((s, v) => s + v, 0) / n;
  let sab = 0;
  let saa = 0;
  let sbb = 0;
  for (let i = 0; i < n; i++) {
    sab += (a[i]! - ma) * (b[i]! - mb);
    saa += (a[i]! - ma) ** 2;
    sbb += (b[i]! - mb) ** 2;
  }
  return sab / Math.sqrt(saa * sbb);
}

function channelMeans(image: RgbImage): number[] {
  const sums = [0, 0, 0];
  for (let i = 0; i < image.data.length; i++) sums[i % 3]! += image.data[i]!;
  return sums.map((s) => s / (image.data.length / 3));
}

describe('renderReference', () => {
  let raw30d: DecodedRaw;
  beforeAll(async () => {
    raw30d = await decoded(canon30d);
  });

  it('renders the 30D at half size, upright, like the camera JPEG (luminance correlation)', async () => {
    // Speed is measured by the bench (docs/analysis-raw.md), not asserted: it depends on the machine.
    const image = await renderReference(raw30d);
    expect([image.width, image.height]).toEqual([1752, 1168]);
    expect(image.data.length).toBe(1752 * 1168 * 3);
    const [a, b] = await Promise.all([luminance(image, 192, 128), luminance(fixture(canon30dJpeg), 192, 128)]);
    // Measured 0.987 (a 180-degree turn gives -0.75).
    expect(correlation(a, b)).toBeGreaterThan(0.95);
    // Flipped or rotated output would decorrelate: the orientation is right.
    expect(correlation(a, a.slice().reverse())).toBeLessThan(0.5);
  });

  it('keeps the scene colours: blue sky above green forest, as in the camera JPEG', async () => {
    const image = await renderReference(raw30d, { maxSide: 300 });
    const band = (top: number, bottom: number): RgbImage => {
      const y0 = Math.floor(image.height * top);
      const y1 = Math.floor(image.height * bottom);
      return { width: image.width, height: y1 - y0, data: image.data.subarray(y0 * image.width * 3, y1 * image.width * 3) };
    };
    const [skyR, , skyB] = channelMeans(band(0.05, 0.3));
    const [forestR, forestG, forestB] = channelMeans(band(0.7, 0.9));
    expect(skyB).toBeGreaterThan(skyR!);
    expect(forestG).toBeGreaterThan(forestR!);
    expect(forestG).toBeGreaterThan(forestB!);
  });

  it('downscales to maxSide', async () => {
    const image = await renderReference(raw30d, { maxSide: 512 });
    expect(Math.max(image.width, image.height)).toBe(512);
    expect(image.width / image.height).toBeCloseTo(3504 / 2336, 1);
  });

  it('rejects a nonsensical maxSide with the parameter named', async () => {
    await expect(renderReference(raw30d, { maxSide: 0 })).rejects.toThrow(/maxSide/);
  });

  it('renders the 6D LinearRaw DNG from its linear RGB, close to the converter preview', async () => {
    const raw = await decoded(canon6dDng);
    const image = await renderReference(raw);
    expect([image.width, image.height]).toEqual([1224, 816]);
    const [a, b] = await Promise.all([luminance(image, 192, 128), luminance(fixture('pairs/canon_eos_6d_dng/canon_eos_6d.preview.jpg'), 192, 128)]);
    // Measured 0.968: the converter's preview has its own tone curve.
    expect(correlation(a, b)).toBeGreaterThan(0.9);
  });
});

describe('orient', () => {
  // 3x2 image, pixel value = index, one channel repeated.
  const image: RgbImage = { width: 3, height: 2, data: Uint8Array.from([0, 1, 2, 3, 4, 5].flatMap((v) => [v, v, v])) };
  const values = (i: RgbImage): number[] => [...i.data].filter((_, k) => k % 3 === 0);
  it.each([
    [1, 3, 2, [0, 1, 2, 3, 4, 5]],
    [2, 3, 2, [2, 1, 0, 5, 4, 3]],
    [3, 3, 2, [5, 4, 3, 2, 1, 0]],
    [4, 3, 2, [3, 4, 5, 0, 1, 2]],
    [5, 2, 3, [0, 3, 1, 4, 2, 5]],
    [6, 2, 3, [3, 0, 4, 1, 5, 2]],
    [7, 2, 3, [5, 2, 4, 1, 3, 0]],
    [8, 2, 3, [2, 5, 1, 4, 0, 3]],
  ])('EXIF orientation %i', (orientation, width, height, expected) => {
    const out = orient(image, orientation);
    expect([out.width, out.height]).toEqual([width, height]);
    expect(values(out)).toEqual(expected);
  });
});
