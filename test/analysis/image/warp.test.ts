import { describe, expect, it } from 'vitest';
import { warpRgb } from '../../../src/analysis/compare/frame.js';
import { samplingLevel, warpBilinear } from '../../../src/analysis/image/warp.js';
import type { RgbImage } from '../../../src/analysis/types.js';

/** A 2 × 1 image: a black pixel, then one of value 1 (each channel). */
const ramp: RgbImage = { width: 2, height: 1, data: Uint8Array.from([0, 0, 0, 1, 1, 1]) };
/** Output pixel x samples the source at x / 2: the middle one halfway between the two pixels (0.5). */
const halfStep: [number, number, number, number, number, number] = [0.5, 0, 0, 0, 1, 0];

describe('the one bilinear warp (issue 37: the comparison frame and the PSD rendition share it)', () => {
  it('rounds a tie half up into a Uint8Array (the frame) and half to even into a Uint8ClampedArray (the PSD layer)', () => {
    const frame = new Uint8Array(3 * 3);
    expect(warpBilinear(ramp, halfStep, 3, 1, frame, 3)).toBe(3);
    expect([...frame]).toEqual([0, 0, 0, 1, 1, 1, 1, 1, 1]);
    const layer = new Uint8ClampedArray(3 * 4);
    warpBilinear(ramp, halfStep, 3, 1, layer, 4);
    // 0.5 rounds to 0 (even); the fourth channel is opaque where covered.
    expect([...layer]).toEqual([0, 0, 0, 255, 0, 0, 0, 255, 1, 1, 1, 255]);
  });

  it('leaves what the source does not reach as it was and marks what it covers', () => {
    const out = new Uint8ClampedArray(4 * 4).fill(7);
    const mask = new Uint8Array(4);
    // Output x samples the source at x - 1: x = 0 and x = 3 lie more than half a pixel outside it.
    expect(warpBilinear(ramp, [1, 0, -1, 0, 1, 0], 4, 1, out, 4, mask)).toBe(2);
    expect([...mask]).toEqual([0, 1, 1, 0]);
    expect([...out.subarray(0, 4)]).toEqual([7, 7, 7, 7]);
    expect([...out.subarray(12)]).toEqual([7, 7, 7, 7]);
    expect(warpRgb(ramp, [1, 0, -1, 0, 1, 0], 4, 1).coverage).toBe(0.5);
  });

  it('samples a level of about one source pixel per output pixel when the output is much coarser', () => {
    const big: RgbImage = { width: 400, height: 200, data: new Uint8Array(400 * 200 * 3) };
    const same = samplingLevel(big, [1.2, 0, 0, 0, 1.2, 0]);
    expect(same.level).toBe(big);
    const coarse = samplingLevel(big, [4, 0, 0, 0, 4, 0]);
    expect([coarse.level.width, coarse.level.height]).toEqual([100, 50]);
    expect(coarse.toLevel[0]).toBeCloseTo(1, 6);
  });
});
